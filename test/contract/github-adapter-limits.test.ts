import { afterEach, describe, expect, it } from "vitest";
import {
  AuthError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  RemoteUnavailableError,
} from "../../src/core/errors.js";
import { limitsFor } from "../../src/config/load.js";
import { createGate } from "../../src/gate/gate.js";
import { serviceShape } from "../../src/gate/gate-limits.js";
import { startGithubHarness, type GithubHarness } from "./github-setup.js";

let h: GithubHarness;
afterEach(async () => {
  await h.close();
});

const story = (n: number) => ({
  kind: "story" as const,
  title: `Story ${n}`,
  status: "open",
  assignees: [],
  labels: [],
});

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("GitHub adapter rate limits and errors", () => {
  it("reports exactly the retry-after it was told, and never retries", async () => {
    h = await startGithubHarness();
    h.sandbox.setFaults("429=7");
    const before = h.sandbox.stats().requests;
    const err = await failure(h.tracker.create(story(1)));
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBe(7000);
    expect(h.sandbox.stats().requests - before).toBe(1);
  });

  it("reports the retry-after of a secondary limit, or waits at least 60 s without one", async () => {
    h = await startGithubHarness({ rateLimits: "creates=1/min,retry-after=off" });
    h.sandbox.setFaults("403-secondary=9");
    const told = (await failure(h.tracker.create(story(1)))) as RateLimitError;
    expect(told).toBeInstanceOf(RateLimitError);
    expect(told.limit).toBe("secondary");
    expect(told.retryAfterMs).toBe(9000);
    h.sandbox.setFaults("");
    await h.tracker.create(story(1));
    const bare = (await failure(h.tracker.create(story(2)))) as RateLimitError;
    expect(bare.limit).toBe("secondary");
    expect(bare.retryAfterMs).toBe(60_000);
  });

  it("waits until x-ratelimit-reset when the primary quota is exhausted", async () => {
    h = await startGithubHarness({ rateLimits: "core=2/h" });
    await h.tracker.listIterations();
    await h.tracker.listIterations();
    const err = (await failure(h.tracker.listIterations())) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.limit).toBe("primary");
    expect(err.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(3_601_000);
    expect(h.tracker.rateLimitState().core).toMatchObject({ remaining: 0, limit: 2 });
  });

  it("answers a secondary limit from the real content-creation budget with its wait", async () => {
    h = await startGithubHarness({ rateLimits: "creates=2/min" });
    await h.tracker.create(story(1));
    await h.tracker.create(story(2));
    const err = (await failure(h.tracker.create(story(3)))) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.limit).toBe("secondary");
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(err.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it("never trips a secondary limit on a burst of 100 creates through GitHub's gate", async () => {
    // The gate the CLI builds for GitHub (config defaults: 80/min, 500/h, completion-anchored).
    const gate = createGate({
      system: "github",
      limits: { ...limitsFor("github", undefined), ...serviceShape("github"), timeScale: 60 },
    }).forRun();
    h = await startGithubHarness({ rateLimits: "real", timeScale: 60 }, { gate });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => h.tracker.create(story(i + 1))),
    );
    expect(results).toHaveLength(100);
    expect(h.sandbox.stats().rateLimited).toBe(0);
    expect(gate.counters()).toMatchObject({ writes: 100, retries: 0 });
  });

  it("maps 401, 403 and 404 to typed errors without the token", async () => {
    h = await startGithubHarness();
    const bad = "ghp_secretsecretsecretsecretsecretsecret";
    const auth = await failure(h.tracker2({ token: bad }).create(story(1)));
    expect(auth).toBeInstanceOf(AuthError);
    expect((auth as AuthError).message).toContain("GITHUB_TOKEN");
    expect(
      JSON.stringify({
        m: (auth as AuthError).message,
        d: (auth as AuthError).details,
        h: (auth as AuthError).hint,
      }),
    ).not.toContain(bad);
    const perm = await failure(h.tracker2({ token: h.sandbox.readToken }).create(story(1)));
    expect(perm).toBeInstanceOf(PermissionError);
    expect(JSON.stringify((perm as PermissionError).message)).not.toContain(h.sandbox.readToken);
    const missing = await failure(
      h.tracker.update({ kind: "story", id: "77" }, { set: { title: "x" } }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);
  });

  it("maps 5xx and connection resets to transient RemoteUnavailableError", async () => {
    h = await startGithubHarness();
    h.sandbox.setFaults("503");
    const e503 = await failure(h.tracker.get({ kind: "story", id: "1" }));
    expect(e503).toBeInstanceOf(RemoteUnavailableError);
    expect((e503 as RemoteUnavailableError).transient).toBe(true);
    h.sandbox.setFaults("reset");
    expect(await failure(h.tracker.get({ kind: "story", id: "1" }))).toBeInstanceOf(
      RemoteUnavailableError,
    );
  });

  it("gives up on a request that gets no answer, as a transient RemoteUnavailableError", async () => {
    h = await startGithubHarness();
    h.sandbox.setFaults("timeout");
    const err = await failure(h.tracker2({ timeoutMs: 200 }).get({ kind: "story", id: "1" }));
    expect(err).toBeInstanceOf(RemoteUnavailableError);
    expect((err as RemoteUnavailableError).message).toMatch(/timed out after 200 ms/);
    expect((err as RemoteUnavailableError).transient).toBe(true);
  });

  it("works under a GitHub Enterprise Server path prefix", async () => {
    h = await startGithubHarness();
    const paths: string[] = [];
    const t = h.tracker2({
      baseUrl: `${h.sandbox.url}/api/v3`,
      fetch: (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        paths.push(url.pathname);
        url.pathname = url.pathname.replace(/^\/api\/v3/, "");
        return fetch(url, init);
      },
    });
    const item = await t.create(story(1));
    expect((await t.get({ kind: "story", id: item.id }))?.title).toBe("Story 1");
    expect(paths.every((p) => p.startsWith("/api/v3/repos/acme/widgets/"))).toBe(true);
  });

  it("pins the API version and sends the stored ETag", async () => {
    h = await startGithubHarness();
    const seen: Headers[] = [];
    const t = h.tracker2({
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    const pages = [];
    for await (const p of t.changes(undefined)) pages.push(p);
    for await (const p of t.changes(pages.at(-1)!.checkpoint)) pages.push(p);
    expect(seen.every((x) => x.get("x-github-api-version") === "2022-11-28")).toBe(true);
    expect(seen.at(-1)?.get("if-none-match")).toBeTruthy();
  });
});
