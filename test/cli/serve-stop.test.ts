import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, startServe } from "./serve-support.js";
import { runCliProcess, waitForOutput } from "./spawn.js";

let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=40,tasks=0,comments=0");
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

describe("serve stopped during a run", () => {
  it("stops on SIGTERM with the state consistent: a rerun creates no duplicate", async () => {
    // GitHub's published write limits keep the startup run going long enough to stop it midway.
    const paced = writeConfig(tmp.dir, servers, { paced: true, file: "paced.json" });
    editConfig(paced, (c) => {
      c.jobs = c.jobs.filter((j) => j.name === "gh");
    });
    const served = await startServe(paced, servers.env, ["--log-level", "debug"]);
    await waitForOutput(served.proc, (o) => o.stderr.includes('"msg":"created"'));
    served.proc.kill("SIGTERM");
    const r = await served.proc.done;
    expect([0, 130]).toContain(r.code);
    const fast = writeConfig(tmp.dir, servers, { file: "fast.json" });
    const rerun = await runCliProcess(["sync", "--config", fast, "--job", "gh", "--json"], {
      env: servers.env,
    });
    expect(rerun.code).toBe(0);
    const res = await fetch(
      `${servers.github.url}/repos/${servers.github.owner}/${servers.github.repo}/issues?state=all&per_page=100`,
      { headers: { authorization: `token ${servers.github.token}` } },
    );
    const issues = (await res.json()) as { title: string }[];
    expect(issues).toHaveLength(40);
    expect(new Set(issues.map((i) => i.title)).size).toBe(40);
  });
});
