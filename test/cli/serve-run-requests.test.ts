import { randomUUID } from "node:crypto";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { openState } from "../../src/state/open-state.js";
import { postgresSkipReason } from "../support/postgres-server.js";
import { writeConfig } from "./fixtures.js";
import {
  editConfig,
  eventually,
  getJson,
  parseMetrics,
  postGithubDelivery,
  startServe,
  type Served,
} from "./serve-support.js";
import { useServeWorld } from "./serve-world.js";

// Issue #19: two serve replicas on one PostgreSQL state. A webhook delivery reaches replica A
// while replica B runs the job (holds its lease) and has already read the issues — before the
// change the delivery is about. A used to skip it: with no schedule to come, the change was never
// synced. Now A records a run request in the state, and the job runs once more after B's run
// (coalescing every delivery that came meanwhile into one follow-up run).

const SECRET = `hook-${randomUUID()}`;
const world = useServeWorld("stories=3,tasks=1,comments=0", { postgres: true });
const { tmp, served } = world;

interface JobsAnswer {
  jobs: {
    name: string;
    running: boolean;
    pending: boolean;
    runningOn: string | null;
    requested: { deliveries: number; since: string } | null;
    items: Record<string, number>;
  }[];
}

const gh = async (s: Served): Promise<JobsAnswer["jobs"][number] | undefined> =>
  (await getJson<JobsAnswer>(`${s.url}/api/jobs`)).jobs.find((j) => j.name === "gh");

/**
 * A proxy in front of the GitHub sandbox that, while `holding`, sends the issue listing (the
 * change feed) on at once and keeps its answer back until released: the run holding the lease
 * has read the issues as they were, and waits.
 */
async function startHoldingProxy(upstream: string, listing: string) {
  const held: (() => void)[] = [];
  let holding = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const target = new URL(req.url ?? "/", upstream);
      const out = httpRequest(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host } },
        (up) => {
          const body: Buffer[] = [];
          up.on("data", (c: Buffer) => body.push(c));
          up.on("end", () => {
            const send = (): void => {
              res.writeHead(up.statusCode ?? 502, up.headers);
              res.end(Buffer.concat(body));
            };
            if (holding && req.method === "GET" && target.pathname === listing) held.push(send);
            else send();
          });
        },
      );
      out.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold: () => {
      holding = true;
    },
    heldCount: () => held.length,
    release: () => {
      holding = false;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

const metric = async (s: Served, event: string): Promise<number> =>
  parseMetrics(await (await fetch(`${s.url}/metrics`)).text()).get(
    `tinypm_sync_run_requests_total{job="gh",event="${event}"}`,
  ) ?? 0;

describe.skipIf(postgresSkipReason !== undefined)(
  `a delivery to the replica not holding the job${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("is recorded in the state and synced by one follow-up run after the holder's run, without another delivery", async () => {
      const x = world.servers();
      const url = await world.pg().createDatabase("run_requests");
      const listing = `/repos/${x.github.owner}/${x.github.repo}/issues`;
      const proxy = await startHoldingProxy(x.github.url, listing);
      world.closeLater(proxy);
      const config = writeConfig(tmp.dir, x, { githubUrl: proxy.url });
      editConfig(config, (c) => {
        c.targets.github = { ...c.targets.github!, webhookSecretEnv: "GH_HOOK_SECRET" };
        // No schedule to come during the test: only deliveries and "Sync now" run the job.
        c.jobs = c.jobs
          .filter((j) => j.name === "gh")
          .map((j) => ({ ...j, schedule: { every: "1h" } }));
        c.state = { urlEnv: "STATE_URL" };
      });
      const env = { ...x.env, STATE_URL: url, GH_HOOK_SECRET: SECRET };
      const a = await startServe(config, env);
      served.push(a);
      const b = await startServe(config, env);
      served.push(b);
      const quiet = async (s: Served): Promise<boolean> => {
        const j = await gh(s);
        return j !== undefined && !j.running && !j.pending && j.items.story === 3;
      };
      await eventually(
        async () => ((await quiet(a)) && (await quiet(b)) ? true : undefined),
        "the startup runs",
        120_000,
      );

      // B runs the job ("Sync now") and has read the issues; its run waits for their answer.
      proxy.hold();
      const asked = await fetch(`${b.url}/api/jobs/gh/sync`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(asked.status).toBe(202);
      await eventually(() => (proxy.heldCount() > 0 ? true : undefined), "B reading the issues");

      // Meanwhile a person renames an issue on GitHub, and its deliveries reach A.
      const story = x.tinypm.store.storiesOf(1)[1]!;
      const headers = { authorization: `token ${x.github.token}` };
      const issues = (await (
        await fetch(`${x.github.url}${listing}?state=all&per_page=100`, { headers })
      ).json()) as { number: number; title: string }[];
      const issue = issues.find((i) => i.title === story.name)!;
      const title = `${story.name} — renamed while another replica ran the job`;
      const patched = await fetch(`${x.github.url}${listing}/${issue.number}`, {
        method: "PATCH",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      expect(patched.status).toBe(200);
      const deliver = async (): Promise<void> => {
        const res = await postGithubDelivery(a.url, SECRET, "issues", randomUUID(), {
          action: "edited",
          issue: { number: issue.number },
          repository: { full_name: `${x.github.owner}/${x.github.repo}` },
        });
        expect(res.status).toBe(202);
      };
      await deliver();
      const skipped = await eventually(async () => {
        const j = await gh(a);
        return j?.runningOn !== null && j?.requested?.deliveries === 1 ? j : undefined;
      }, "A skipping the run and recording the request");
      expect(skipped.runningOn).toMatch(/ pid \d+$/);
      // A second delivery during the same run coalesces into the same request.
      await deliver();
      await eventually(
        async () => ((await gh(a))?.requested?.deliveries === 2 ? true : undefined),
        "the second delivery recorded",
      );
      expect(await metric(a, "deferred")).toBe(2);
      expect(await (await fetch(a.url)).text()).toContain(`data-requested="2"`);

      // B's run ends; the change reaches tinyPM with no further delivery.
      proxy.release();
      await eventually(
        () => (x.tinypm.store.story(story.id)?.name === title ? true : undefined),
        "the renamed issue's title in tinyPM",
        120_000,
      );
      const state = await openState({ backend: "postgres", url }, { readOnly: true });
      try {
        await eventually(
          async () => ((await state.runRequests()).length === 0 ? true : undefined),
          "the request settled",
        );
      } finally {
        await state.close();
      }
      // Two deliveries, one follow-up run: one coalesced, counted by the replica that ran it.
      await eventually(
        async () =>
          (await metric(a, "coalesced")) + (await metric(b, "coalesced")) === 1 ? true : undefined,
        "the coalesced count",
      );
      await eventually(
        async () =>
          (await (await fetch(a.url)).text()).includes("data-requested=") ? undefined : true,
        "the dashboard without a waiting request",
      );
    }, 300_000);
  },
);
