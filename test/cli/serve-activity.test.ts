import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";

/**
 * Issue 32: the dashboard showed `running` and nothing else for minutes while a run read. With
 * latency on tinyPM, /api/jobs and the dashboard say what the running run does, and it moves.
 */
let servers: Servers;
let served: Served;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=24,tasks=1,comments=0");
  servers.tinypm.setFaults("latency=80");
  const config = writeConfig(tmp.dir, servers);
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

interface JobsAnswer {
  jobs: { name: string; running: boolean; activity: string | null }[];
}

describe("serve shows what a running run does", () => {
  it("in /api/jobs and on the dashboard, with counts that move while it reads", async () => {
    const seen = new Set<string>();
    let onPage = false;
    await eventually(async () => {
      const { jobs } = await getJson<JobsAnswer>(`${served.url}/api/jobs`);
      const a = jobs.find((j) => j.name === "gh")?.activity;
      if (a?.startsWith("reading tinyPM · ") === true) seen.add(a);
      const html = await (await fetch(`${served.url}/`)).text();
      onPage ||= /data-activity>reading tinyPM · \d+ request/.test(html);
      return seen.size >= 3 && onPage ? true : undefined;
    }, "three states of the startup run's tinyPM read, one on the dashboard");
    for (const a of seen)
      expect(a).toMatch(/^reading tinyPM · \d+ requests?( · \d+\/24 stories read)?$/);
    await eventually(async () => {
      const r = await getJson<JobsAnswer>(`${served.url}/api/jobs`);
      return r.jobs[0]?.running === false ? r : undefined;
    }, "the end of the startup run");
    const idle = await getJson<JobsAnswer>(`${served.url}/api/jobs`);
    expect(idle.jobs[0]?.activity).toBeNull();
  });
});
