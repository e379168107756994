import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, startServe } from "./serve-support.js";
import { startCliProcess, waitForOutput } from "./spawn.js";

/**
 * Issue 32: `serve` did not say that webhooks would be refused without a secret, and
 * `sandbox github --webhook` printed nothing at start and nothing while deliveries failed.
 */
let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

describe("serve's webhook notices", () => {
  it("names each target whose deliveries it refuses, and how to take them", async () => {
    const config = writeConfig(tmp.dir, servers, { file: "no-secret.json" });
    editConfig(config, (c) => {
      c.targets.github = { ...c.targets.github!, webhookSecretEnv: "GH_HOOK_SECRET" };
    });
    const served = await startServe(config, { ...servers.env, GH_HOOK_SECRET: "s3cret" });
    try {
      const out = () => served.proc.output().stdout;
      await waitForOutput(served.proc, (o) => o.stdout.includes('webhooks: target "jira"'));
      expect(out()).toContain(
        `webhooks: target "github" (GitHub) takes deliveries at ${served.url}/webhooks/github`,
      );
      expect(out()).toContain(
        `webhooks: target "jira" (Jira) has no secret, so its deliveries to ${served.url}/webhooks/jira are refused (401), and job jr runs on schedule and "Sync now" only. To take them, add "webhookSecretEnv": "JIRA_WEBHOOK_SECRET" to the target and export JIRA_WEBHOOK_SECRET with the webhook's secret.`,
      );
      // The secret itself is never printed.
      expect(out()).not.toContain("s3cret");
    } finally {
      served.proc.kill("SIGTERM");
      await served.proc.done;
    }
  });
});

describe("sandbox github --webhook", () => {
  it("prints where it delivers at start, and a line for each failed delivery", async () => {
    const port = await closedPort();
    const hook = `http://127.0.0.1:${port}/webhooks/github`;
    const proc = startCliProcess(
      ["sandbox", "github", "--rate-limits", "off", "--token", "ghp_hook", "--webhook", hook],
      {},
    );
    try {
      await waitForOutput(proc, (o) => o.stdout.includes("webhook: "));
      const stdout = proc.output().stdout;
      expect(stdout).toContain(
        `webhook: delivering every change to ${hook} (unsigned: serve refuses unsigned deliveries; add --webhook-secret-env)`,
      );
      const url = /listening on (\S+)/.exec(stdout)?.[1] ?? "";
      const repo = /repository: (\S+)/.exec(stdout)?.[1] ?? "";
      const res = await fetch(`${url}/repos/${repo}/issues`, {
        method: "POST",
        headers: { authorization: "token ghp_hook", "content-type": "application/json" },
        body: JSON.stringify({ title: "a change to deliver" }),
      });
      expect(res.status).toBe(201);
      await waitForOutput(proc, (o) => o.stderr.includes("trying again in 1 s"));
      expect(proc.output().stderr).toMatch(
        new RegExp(
          `^webhook: issues delivery [0-9a-f-]+ to ${hook.replaceAll(".", "\\.")} failed: no answer \\(is serve running on that address\\?\\); trying again in 1 s$`,
          "m",
        ),
      );
    } finally {
      proc.kill("SIGTERM");
      await proc.done;
    }
  });
});
