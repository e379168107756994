/**
 * A process that runs job after job on one stop signal (`serve`, `sync --watch`, a person's own
 * script through the library): each run joins that signal with its lease's fence, in its session
 * and in both request gates. Once the run is over nothing of it may stay on the signal — with
 * `AbortSignal.any` three entries per run stayed for the signal's lifetime on Node 20.
 */
import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, runJob } from "../../src/library/library.js";
import { startServers, tempDir, writeConfig, type Servers } from "../cli/fixtures.js";
import { abortDependants } from "../support/abort-dependants.js";

let servers: Servers;
const tmp = tempDir();
beforeAll(async () => {
  servers = await startServers("stories=3,tasks=1,comments=1");
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

describe("runs on a stop signal that outlives them", () => {
  it("leave no entry and no listener on it, on either target", async () => {
    const config = loadConfig(writeConfig(tmp.dir, servers), { env: servers.env });
    const processStop = new AbortController();
    for (const job of ["gh", "jr"]) {
      const migrated = await runJob(config, job, { mode: "migrate", signal: processStop.signal });
      expect(migrated.summary.created).toBe(6);
      for (let i = 0; i < 3; i++) {
        const quiet = await runJob(config, job, { signal: processStop.signal });
        expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0 });
      }
    }
    expect(abortDependants(processStop.signal)).toBe(0);
    expect(getEventListeners(processStop.signal, "abort")).toHaveLength(0);
  });
});
