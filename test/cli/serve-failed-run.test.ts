import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAPPINGS, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";

// A run can fail before it reaches the run journal (its mapping file is missing or broken, the
// state cannot be opened): the dashboard and /api/jobs must say "failed" and why, not "never".
interface JobsAnswer {
  jobs: {
    name: string;
    lastRun: { id: string; outcome: string } | null;
    lastError: { at: string; error: string } | null;
  }[];
}

let servers: Servers;
let served: Served;
const tmp = tempDir();
const mapping = join(tmp.dir, "github-mapping.yaml");

beforeAll(async () => {
  servers = await startServers("stories=2,tasks=0,comments=0");
  const config = writeConfig(tmp.dir, servers);
  editConfig(config, (c) => {
    c.jobs = c.jobs
      .filter((j) => j.name === "gh")
      .map((j) => ({ ...j, mapping, schedule: { every: "1h" } }));
  });
  served = await startServe(config, servers.env);
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await servers.close();
  tmp.cleanup();
});

const gh = async (): Promise<JobsAnswer["jobs"][number] | undefined> =>
  (await getJson<JobsAnswer>(`${served.url}/api/jobs`)).jobs.find((j) => j.name === "gh");

describe("a run that fails before the journal", () => {
  it("shows as failed, with its error, in /api/jobs and on the dashboard", async () => {
    const job = await eventually(async () => {
      const j = await gh();
      return j?.lastError === null ? undefined : j;
    }, "the failed startup run");
    expect(job.lastRun).toBeNull();
    expect(job.lastError?.error).toContain("github-mapping.yaml");
    const html = await (await fetch(`${served.url}/`)).text();
    expect(html).toMatch(/<span class="failed">failed<\/span>/);
    expect(html).toContain("data-last-error");
    expect(html).toContain("github-mapping.yaml");
  });

  it("gives way to the journal's run once a run succeeds", async () => {
    copyFileSync(join(MAPPINGS, "github.yaml"), mapping);
    const html = await (await fetch(`${served.url}/`)).text();
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? "";
    const now = await fetch(`${served.url}/jobs/gh/sync`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${csrf}`,
      redirect: "manual",
    });
    expect(now.status).toBe(303);
    const job = await eventually(async () => {
      const j = await gh();
      return j?.lastRun?.outcome === "ok" ? j : undefined;
    }, "a journalled run");
    expect(job.lastError).toBeNull();
  });
});
