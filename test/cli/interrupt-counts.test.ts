import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess, waitForOutput } from "./spawn.js";

let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  // Every story has a comment: after each create the run waits for GitHub's paced write slot to
  // copy it, so a Ctrl-C right after a create lands between the create and the end of its item.
  servers = await startServers("stories=20,tasks=0,comments=1");
  config = writeConfig(tmp.dir, servers, { paced: true });
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

describe("Ctrl-C right after a create", () => {
  it("counts every item the stopped run created and linked (issue #32: 21 linked, 20 created)", async () => {
    const run = startCliProcess(
      ["migrate", "--config", config, "--job", "gh", "--log-level", "debug"],
      { env: servers.env },
    );
    await waitForOutput(run, (o) => o.stderr.includes('"msg":"created"'));
    run.kill("SIGINT");
    expect((await run.done).code).toBe(130);
    const status = await runCliProcess(["status", "--config", config, "--json"], {
      env: servers.env,
    });
    const parsed = JSON.parse(status.stdout) as {
      jobs: {
        job: string;
        links: number;
        lastRuns: { outcome: string; counts: { created?: number } }[];
      }[];
    };
    const job = parsed.jobs.find((j) => j.job === "gh");
    expect(job?.links).toBeGreaterThan(0);
    expect(job?.lastRuns[0]?.outcome).toBe("interrupted");
    expect(job?.lastRuns[0]?.counts.created).toBe(job?.links);
    const text = await runCliProcess(["status", "--config", config], { env: servers.env });
    expect(text.stdout).toContain(`${job?.links} linked item`);
    expect(text.stdout).toMatch(new RegExp(`migrate interrupted: ${job?.links} created`));
  });
});
