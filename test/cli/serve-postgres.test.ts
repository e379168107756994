import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { openState } from "../../src/state/open-state.js";
import type { JobLease, StateStore } from "../../src/state/store.js";
import { postgresSkipReason } from "../support/postgres-server.js";
import { writeConfig } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";
import { useServeWorld } from "./serve-world.js";

interface JobsAnswer {
  jobs: {
    name: string;
    runningOn: string | null;
    lastRun: { id: string; outcome: string } | null;
    items: Record<string, number>;
  }[];
}

const world = useServeWorld("stories=3,tasks=1,comments=1", { postgres: true });
const { tmp, served } = world;

const gh = async (s: Served): Promise<JobsAnswer["jobs"][number] | undefined> =>
  (await getJson<JobsAnswer>(`${s.url}/api/jobs`)).jobs.find((j) => j.name === "gh");
const syncNow = async (s: Served): Promise<void> => {
  const res = await fetch(`${s.url}/api/jobs/gh/sync`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  expect(res.status).toBe(202);
};

describe.skipIf(postgresSkipReason !== undefined)(
  `serve on a PostgreSQL state${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("skips a job whose lease another worker holds, shows where it runs, and runs it once free; two serves share the state without duplicates", async () => {
      const pg = world.pg();
      const servers = world.servers();
      const url = await pg.createDatabase("serve_pg");
      const config = writeConfig(tmp.dir, servers);
      editConfig(config, (c) => {
        c.jobs = c.jobs
          .filter((j) => j.name === "gh")
          .map((j) => ({ ...j, schedule: { every: "1h" } }));
        c.state = { urlEnv: "STATE_URL" };
      });
      const env = { ...servers.env, STATE_URL: url };
      // This test process is another worker holding the job.
      const other: StateStore = await openState({ backend: "postgres", url });
      let lease: JobLease | undefined = await other.claimJob("gh");
      try {
        const a = await startServe(config, env);
        served.push(a);
        const held = await eventually(async () => {
          const j = await gh(a);
          return j?.runningOn === null ? undefined : j;
        }, "the startup run skipped");
        expect(held.runningOn).toBe(`${hostname()} pid ${String(process.pid)}`);
        expect(held.lastRun).toBeNull();
        expect(servers.github.stats().writes).toBe(0);
        const html = await (await fetch(a.url)).text();
        expect(html).toContain(`running on ${hostname()} pid ${String(process.pid)}`);

        await lease.release();
        lease = undefined;
        await syncNow(a);
        const ran = await eventually(async () => {
          const j = await gh(a);
          // The run is journalled ok a moment before the service hears it ended (the store
          // closes in between): wait for both rather than read the first moment.
          return j?.lastRun?.outcome === "ok" && j.runningOn === null ? j : undefined;
        }, "the run once the lease was free");
        expect(ran.runningOn).toBeNull();
        expect(ran.items).toEqual({ story: 3, task: 3 });

        // A second serve on the same state sees the first's run and creates nothing again.
        const b = await startServe(config, env);
        served.push(b);
        const writesBefore = servers.github.stats().writes;
        await eventually(async () => {
          const j = await gh(b);
          return j?.lastRun?.outcome === "ok" && j.lastRun.id !== ran.lastRun?.id ? j : undefined;
        }, "the second serve's startup run");
        const seen = await gh(b);
        expect(seen?.items).toEqual({ story: 3, task: 3 });
        expect(seen?.lastRun?.outcome).toBe("ok");
        expect(servers.github.stats().writes).toBe(writesBefore);
        const state = await openState({ backend: "postgres", url }, { readOnly: true });
        try {
          expect(await state.pendingIntents("gh")).toEqual([]);
          expect(await state.countLinks("gh")).toBe(6);
        } finally {
          await state.close();
        }
      } finally {
        await lease?.release();
        await other.close();
      }
    }, 240_000);
  },
);
