import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess, waitForOutput } from "./spawn.js";

let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  // Enough stories that a migration paced at GitHub's 80 writes/min is still running when stopped.
  servers = await startServers("stories=60,tasks=0,comments=0");
  config = writeConfig(tmp.dir, servers, { paced: true });
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

describe("SIGINT during a run", () => {
  it("exits 130 with the state consistent, and a rerun finishes without duplicates", async () => {
    const run = startCliProcess(
      ["migrate", "--config", config, "--job", "gh", "--log-level", "debug"],
      { env: servers.env },
    );
    await waitForOutput(run, (o) => o.stderr.includes('"msg":"created"'));
    run.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("error [interrupted]");
    const status = await runCliProcess(["status", "--config", config, "--json"], {
      env: servers.env,
    });
    const parsed = JSON.parse(status.stdout) as { jobs: { job: string; links: number }[] };
    const links = parsed.jobs.find((j) => j.job === "gh")?.links ?? 0;
    expect(links).toBeGreaterThan(0);
    expect(links).toBeLessThan(60);

    const fast = writeConfig(tmp.dir, servers, { file: "fast.json" });
    const rerun = await runCliProcess(["migrate", "--config", fast, "--job", "gh", "--json"], {
      env: servers.env,
    });
    expect(rerun).toMatchObject({ code: 0 });
    const res = await fetch(
      `${servers.github.url}/repos/${servers.github.owner}/${servers.github.repo}/issues?state=all&per_page=100`,
      { headers: { authorization: `token ${servers.github.token}` } },
    );
    const issues = (await res.json()) as { title: string }[];
    expect(issues).toHaveLength(60);
    expect(new Set(issues.map((i) => i.title)).size).toBe(60);
  });
});
