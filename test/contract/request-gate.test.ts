import { afterEach, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { InterruptedError, LimitWaitError } from "../../src/core/errors.js";
import type { GateEvent } from "../../src/core/request-gate.js";
import { createGate } from "../../src/gate/gate.js";
import { openSharedGate, sharedGateHolders } from "../../src/gate/gate-registry.js";
import { createVirtualClock, realClock, type Clock } from "../../src/gate/virtual-clock.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";

let sandbox: GithubSandbox;
afterEach(async () => {
  await sandbox.close();
});

const story = (n: number) => ({
  kind: "story" as const,
  title: `Story ${n}`,
  status: "open",
  assignees: [],
  labels: [],
});

const trackerWith = (gate: Parameters<typeof createGithubTracker>[0]["gate"]) =>
  createGithubTracker({
    baseUrl: sandbox.url,
    token: sandbox.token,
    owner: sandbox.owner,
    repo: sandbox.repo,
    gate,
  });

describe("the request gate in front of the GitHub adapter (sandbox on loopback)", () => {
  it("honours Retry-After: the refused create waits as told, then goes through once", async () => {
    sandbox = await startGithubSandbox();
    sandbox.setFaults("429=7@POST /repos/**");
    const clock = createVirtualClock(1_000_000);
    const events: GateEvent[] = [];
    const gate = createGate({ system: "github", limits: {}, clock }).forRun({
      onEvent: (e) => {
        events.push(e);
        if (e.type === "retry") sandbox.setFaults("");
      },
    });
    const tracker = trackerWith(gate);
    const created = await tracker.create(story(1));
    await tracker.close();
    expect(created.title).toBe("Story 1");
    const posts = events.filter((e) => e.type === "request" && e.kind === "write");
    expect(posts).toMatchObject([{ status: 429 }, { status: 201 }]);
    expect(events.find((e) => e.type === "wait_start")).toMatchObject({
      reason: "service",
      until: 1_007_000,
    });
    expect(clock.now()).toBeGreaterThanOrEqual(1_007_000);
    expect(gate.counters()).toMatchObject({ writes: 2, retries: 1, rateLimitWaits: 1 });
    const titles: string[] = [];
    const reader = trackerWith(undefined);
    for await (const item of reader.list({ kind: "story" })) titles.push(item.title);
    await reader.close();
    expect(titles.filter((t) => t === "Story 1")).toHaveLength(1);
  });

  it("gives two jobs on one token one budget: the second stops before writing, with the time", async () => {
    sandbox = await startGithubSandbox();
    const owner = { system: "github" as const, baseUrl: sandbox.url, token: sandbox.token };
    const limits = { writesPerHour: 2, writeWindows: "completion" as const };
    const jobA = openSharedGate(owner, limits, {});
    const jobB = openSharedGate(owner, limits, {});
    expect(sharedGateHolders(owner)).toBe(2);
    const a = trackerWith(jobA);
    const b = trackerWith(jobB);
    await a.create(story(1));
    await a.create(story(2));
    const before = sandbox.stats().writes;
    const error = await b.create(story(3)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitWaitError);
    expect((error as LimitWaitError).message).toMatch(/hourly limit until \d{4}-\d\d-\d\dT/);
    expect((error as LimitWaitError).resumeAt).toBeGreaterThan(Date.now() + 3_000_000);
    expect(sandbox.stats().writes).toBe(before);
    expect(jobB.counters().writes).toBe(0);
    // Another token on the same server has its own budget.
    const other = openSharedGate({ ...owner, token: "another-token" }, limits, {});
    expect(sharedGateHolders({ ...owner, token: "another-token" })).toBe(1);
    other.close();
    jobA.close();
    jobB.close();
    await Promise.all([a.close(), b.close()]);
  });

  it("ends an hour-long wait at the stop, having sent nothing more", async () => {
    sandbox = await startGithubSandbox();
    const controller = new AbortController();
    // The run is stopped once the gate sleeps through the hour's wait, on the real clock: a
    // moment the test knows, where a fixed pause and a stop timed by the wall clock hung on the
    // machine's speed. A wait the stop did not end would end only after the hour.
    const clock: Clock = {
      now: realClock.now,
      sleep: (ms, signal) => {
        const asleep = realClock.sleep(ms, signal);
        if (ms > 60_000) controller.abort(new Error("SIGINT"));
        return asleep;
      },
    };
    const gate = createGate({
      system: "github",
      limits: { writesPerHour: 1, writeWindows: "completion" },
      clock,
    }).forRun({ signal: controller.signal, maxWaitMs: Infinity });
    const tracker = trackerWith(gate);
    await tracker.create(story(1));
    const writes = sandbox.stats().writes;
    expect(await tracker.create(story(2)).catch((e: unknown) => e)).toBeInstanceOf(
      InterruptedError,
    );
    expect(sandbox.stats().writes).toBe(writes);
    await tracker.close();
  });
});
