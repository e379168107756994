import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGithubClient } from "../../src/adapters/github/client.js";
import { createGate } from "../../src/gate/gate.js";
import { abortDependants as dependants } from "../support/abort-dependants.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";

let sandbox: GithubSandbox;
beforeAll(async () => {
  sandbox = await startGithubSandbox({ rateLimits: "off" });
});
afterAll(async () => {
  await sandbox.close();
});

describe("the GitHub client and a run's long-lived signal", () => {
  it("leaves nothing on the signal after hundreds of REST and GraphQL requests", async () => {
    // A run's signal lives as long as the run (the process's, for `serve`): each request sent
    // with it must not leave an entry behind (AbortSignal.any did, one per request, for good).
    const run = new AbortController();
    const client = createGithubClient({
      baseUrl: sandbox.url,
      token: sandbox.token,
      owner: sandbox.owner,
      repo: sandbox.repo,
      gate: createGate({ system: "github", limits: { concurrency: 8 } }).forRun({
        signal: run.signal,
      }),
    });
    const reads = await Promise.all(
      Array.from({ length: 300 }, () =>
        client.request({
          method: "GET",
          url: "/repos/{owner}/{repo}/issues",
          operation: "issues.list",
          signal: run.signal,
        }),
      ),
    );
    expect(reads.every((r) => r !== "not-modified" && r.status === 200)).toBe(true);
    for (let i = 0; i < 50; i++) {
      const data = await client.graphql<{ viewer: { login: string } }>({
        query: "query { viewer { login } }",
        operation: "viewer",
        write: false,
        idempotent: true,
        signal: run.signal,
      });
      expect(data.viewer.login).not.toBe("");
    }
    expect(dependants(run.signal)).toBe(0);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });
});
