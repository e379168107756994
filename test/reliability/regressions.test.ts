import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { RemoteUnavailableError } from "../../src/core/errors.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";

// Bugs the reliability suite found, each pinned by a small test of its own.
describe("GitHub adapter under faults", () => {
  let sandbox: GithubSandbox;
  beforeAll(async () => {
    sandbox = await startGithubSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const tracker = () =>
    createGithubTracker({
      baseUrl: sandbox.url,
      token: sandbox.token,
      owner: sandbox.owner,
      repo: sandbox.repo,
      timeoutMs: 2_000,
    });

  it("reports a JSON body cut off in transit as a transient failure, not a bad payload", async () => {
    sandbox.setFaults("truncate");
    try {
      const error: unknown = await tracker()
        .listUsers()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(RemoteUnavailableError);
      expect((error as RemoteUnavailableError).transient).toBe(true);
    } finally {
      sandbox.setFaults("");
    }
    expect((await tracker().listUsers()).length).toBeGreaterThan(0);
  });
});
