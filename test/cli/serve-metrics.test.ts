import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerStats } from "../../src/server-kit/stats.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import {
  editConfig,
  eventually,
  getJson,
  parseMetrics,
  startServe,
  type Served,
} from "./serve-support.js";

// The GitHub sandbox refuses creates past 3 a sandbox minute, run 15× faster: one window is 4 real
// seconds, so the startup run's creates (issues, comments) meet secondary limits and the gate
// waits out their Retry-After (1–4 s) several times.
let servers: Servers;
let config: string;
let served: Served;
const tmp = tempDir();

interface JobsAnswer {
  jobs: { name: string; running: boolean; pending: boolean; lastRun: { outcome: string } | null }[];
}

beforeAll(async () => {
  servers = await startServers("stories=3,tasks=1,comments=1", {
    rateLimits: "creates=3/min",
    timeScale: 15,
  });
  config = writeConfig(tmp.dir, servers);
  editConfig(config, (c) => {
    c.jobs = c.jobs
      .filter((j) => j.name === "gh")
      .map((j) => ({ ...j, schedule: { every: "1h" } }));
  });
  served = await startServe(config, servers.env);
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await servers.close();
  tmp.cleanup();
});

/** `tinypm_sync_api_requests_total` of one system, by status (summed over kinds). */
function requestsByStatus(metrics: Map<string, number>, system: string): Record<string, number> {
  const out: Record<string, number> = {};
  const re = new RegExp(
    `^tinypm_sync_api_requests_total\\{system="${system}",kind="\\w+",status="(\\w+)"\\}$`,
  );
  for (const [key, value] of metrics) {
    const status = re.exec(key)?.[1];
    if (status !== undefined) out[status] = (out[status] ?? 0) + value;
  }
  return out;
}

const nonZero = (stats: ServerStats): Record<string, number> =>
  Object.fromEntries(Object.entries(stats.byStatus).filter(([, n]) => n > 0));

describe("serve metrics from the request gate", () => {
  it("counts every request by status and the time waited for rate limits", async () => {
    await eventually(
      async () => {
        const { jobs } = await getJson<JobsAnswer>(`${served.url}/api/jobs`);
        const gh = jobs.find((j) => j.name === "gh");
        return gh?.lastRun !== null && gh?.running === false && !gh.pending ? gh : undefined;
      },
      "the startup run",
      180_000,
    );
    await eventually(async () => {
      const res = await fetch(`${served.url}/readyz`);
      return res.status === 200 ? true : undefined;
    }, "readiness (its probes are requests too)");
    const metrics = parseMetrics(await (await fetch(`${served.url}/metrics`)).text());
    const github = requestsByStatus(metrics, "github");
    // Every request the sandbox answered was counted, with the status it answered.
    expect(github).toEqual(nonZero(servers.github.stats()));
    expect(requestsByStatus(metrics, "tinypm")).toEqual(nonZero(servers.tinypm.stats()));
    expect(github["201"]).toBeGreaterThanOrEqual(6);
    expect(github["403"]).toBeGreaterThanOrEqual(1);
    expect(servers.github.stats().rateLimited).toBe(github["403"]);
    expect(
      metrics.get('tinypm_sync_api_requests_total{system="github",kind="write",status="403"}'),
    ).toBe(github["403"]);
    expect(
      metrics.get('tinypm_sync_api_requests_total{system="tinypm",kind="read",status="200"}'),
    ).toBeGreaterThan(0);
    expect(
      metrics.get('tinypm_sync_rate_limit_wait_seconds_total{system="github"}'),
    ).toBeGreaterThan(0.5);
    // tinyPM had no limits: nothing waited for it (the counter exists only once it waited).
    expect(metrics.get('tinypm_sync_rate_limit_wait_seconds_total{system="tinypm"}') ?? 0).toBe(0);
  });
});
