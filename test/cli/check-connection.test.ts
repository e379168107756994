import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

// `check` opens its trackers through the job commands' builder: every connection setting of the
// config applies to its probes too (issue 16: it used to build a shorter connection of its own).
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  // The GitHub sandbox never answers the repository probe.
  servers = await startServers("stories=1", { faults: "timeout@GET /repos/*/*" });
  const file = writeConfig(tmp.dir, servers);
  const cfg = JSON.parse(readFileSync(file, "utf8")) as {
    targets: { github: Record<string, unknown> };
  };
  cfg.targets.github.timeoutMs = 1000;
  writeFileSync(file, JSON.stringify(cfg, null, 2));
  config = file;
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

describe("check: the target's connection settings", () => {
  it("honours the target's timeoutMs: a server that does not answer fails after 1 s, named, once", async () => {
    const started = Date.now();
    const r = await runCliProcess(["check", "--config", config], { env: servers.env });
    const tookMs = Date.now() - started;
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^ok +job gh: tinyPM/m);
    expect(r.stdout).toMatch(/^ok +job jr: jira/m);
    const line = /^FAIL job gh: github: .*$/m.exec(r.stdout)?.[0] ?? "";
    expect(line).toContain("[remote_unavailable]");
    expect(line).toContain(`GitHub (${servers.github.url}) did not answer`);
    expect(line).toContain("within 1 s");
    // A probe is sent once: the sandbox saw one repository request, not a series of retries.
    expect(servers.github.stats().faults).toEqual({ timeout: 1 });
    // Far below the 30 s default the probe used to wait (generous: the machine may be loaded).
    expect(tookMs).toBeLessThan(25_000);
  });
});
