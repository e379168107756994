import { describe, expect, it } from "vitest";
import { postgresSkipReason } from "../support/postgres-server.js";
import { writeConfig } from "./fixtures.js";
import { editConfig, startServe } from "./serve-support.js";
import { useServeWorld } from "./serve-world.js";

// A `serve` started on a PostgreSQL database nothing has written yet (a new deployment) answers
// its API and dashboard from its first request, before its first run has opened the state: not
// a 500 naming schema version 0 until a run happens to create the schema.

const world = useServeWorld("stories=1,tasks=0,comments=0", { postgres: true });
const { tmp, served } = world;

interface JobsAnswer {
  jobs: { name: string; items: Record<string, number> }[];
}

describe.skipIf(postgresSkipReason !== undefined)(
  `serve on a new PostgreSQL database${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("answers /api/jobs, the dashboard and readiness from the first request after it listens", async () => {
      const url = await world.pg().createDatabase("serve_fresh");
      const servers = world.servers();
      const config = writeConfig(tmp.dir, servers);
      editConfig(config, (c) => {
        c.jobs = c.jobs
          .filter((j) => j.name === "gh")
          .map((j) => ({ ...j, schedule: { every: "1h" } }));
        c.state = { urlEnv: "STATE_URL" };
      });
      const s = await startServe(config, { ...servers.env, STATE_URL: url });
      served.push(s);
      // No waiting: the first answers, whether or not the startup run has begun.
      const [api, page] = await Promise.all([fetch(`${s.url}/api/jobs`), fetch(s.url)]);
      expect({ status: api.status, body: await api.clone().text() }).toMatchObject({ status: 200 });
      const { jobs } = (await api.json()) as JobsAnswer;
      expect(jobs.map((j) => j.name)).toEqual(["gh"]);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("gh");
    });
  },
);
