import { describe, expect, it } from "vitest";
import {
  AuthError,
  ConfigError,
  InterruptedError,
  RateLimitError,
  RemoteUnavailableError,
} from "../core/errors.js";
import type { LaneLimits, LaneOp, LanesOptions } from "./lanes.js";
import { createLanes } from "./lanes.js";
import type { RetryPolicy } from "./retry.js";
import { createVirtualClock } from "./virtual-clock.js";

const ctx = { system: "github", operation: "issues.create" } as const;
const timeout = (): RemoteUnavailableError =>
  new RemoteUnavailableError("socket timeout", ctx, { transient: true });
const policy: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  maxTotalMs: 60_000,
};

function setup(limits: LaneLimits = {}, extra: Partial<LanesOptions> = {}) {
  const clock = createVirtualClock();
  const lanes = createLanes({
    limits: { github: limits },
    policy,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    ...extra,
  });
  return { clock, lanes };
}

/** An op whose run follows a script: one entry per attempt, an Error to throw or a value. */
function scripted<T>(
  script: (T | Error)[],
  extra: Partial<LaneOp<T>> = {},
): LaneOp<T> & { calls: number } {
  const state = { calls: 0 };
  const run = (): Promise<T> => {
    const step = script[Math.min(state.calls++, script.length - 1)];
    return step instanceof Error ? Promise.reject(step) : Promise.resolve(step as T);
  };
  const op: LaneOp<T> = { name: "op", kind: "write", run, ...extra };
  return Object.defineProperty({ ...op, calls: 0 }, "calls", { get: () => state.calls });
}

describe("createLanes: item operations only", () => {
  it("keeps at most `concurrency` operations in flight", async () => {
    const { clock, lanes } = setup({ concurrency: 2 });
    let inFlight = 0;
    let most = 0;
    const op: LaneOp<void> = {
      name: "w",
      kind: "write",
      run: async () => {
        most = Math.max(most, ++inFlight);
        await clock.sleep(10);
        inFlight--;
      },
    };
    await Promise.all(Array.from({ length: 5 }, () => lanes.run("github", op)));
    expect(most).toBe(2);
  });

  it("runs an operation once: its requests are the gate's to retry, never the lane's", async () => {
    const { lanes } = setup();
    // A read made of requests the gate already retried: the lane does not run it again.
    const read = scripted<string>([timeout(), "late"], { kind: "read" });
    await expect(lanes.run("github", read)).rejects.toBeInstanceOf(RemoteUnavailableError);
    expect(read.calls).toBe(1);
    const create = scripted<string>([timeout(), "duplicate!"]);
    await expect(lanes.run("github", create)).rejects.toBeInstanceOf(RemoteUnavailableError);
    expect(create.calls).toBe(1);
    expect(lanes.counters().github).toMatchObject({ retries: 0 });
  });

  it("shows the run's gate counters as they are, and rejects bad limits", async () => {
    const use = {
      reads: 3,
      writes: 2,
      notModified: 1,
      byOperation: { "issues.create": 2 },
      retries: 1,
      rateLimitWaits: 1,
      waitedMs: 500,
    };
    const gate = { counters: () => use, retries: () => ({ next: () => Promise.resolve(false) }) };
    const { lanes } = setup({}, { gates: { github: gate } });
    await lanes.run("github", scripted(["created"]));
    expect(lanes.counters().github).toEqual(use);
    expect(() => setup({ concurrency: 0 })).toThrow(ConfigError);
  });
});

describe("createLanes: retry turns of an ensure, under the gate's policy", () => {
  it("grants a turn per ambiguous failure until the policy's attempts are spent, counted", async () => {
    const { clock, lanes } = setup();
    const turns = lanes.retries("github", 'create story "A"');
    const started = clock.now();
    const granted: boolean[] = [];
    for (let i = 0; i < 4; i++) granted.push(await turns.next(timeout()));
    // 4 attempts in all: 3 retries, each after its backoff (full jitter at 0.5: 50, 100, 200 ms).
    expect(granted).toEqual([true, true, true, false]);
    expect(clock.now() - started).toBe(350);
    expect(lanes.counters().github).toMatchObject({ retries: 3 });
  });

  it("grants none for what is no ambiguity: a refusal, auth, a rate limit the gate waited out", async () => {
    const { lanes } = setup();
    const turns = lanes.retries("github", "x");
    expect(await turns.next(new AuthError("bad token", ctx))).toBe(false);
    expect(await turns.next(new RateLimitError("slow down", ctx, { retryAfterMs: 10 }))).toBe(
      false,
    );
    expect(lanes.counters().github).toMatchObject({ retries: 0 });
  });

  it("asks the run's own gate when it has one", async () => {
    const asked: string[] = [];
    const gate = {
      counters: () => ({
        reads: 0,
        writes: 0,
        notModified: 0,
        byOperation: {},
        retries: 0,
        rateLimitWaits: 0,
        waitedMs: 0,
      }),
      retries: (name: string) => {
        asked.push(name);
        return { next: () => Promise.resolve(true) };
      },
    };
    const { lanes } = setup({}, { gates: { github: gate } });
    await expect(lanes.retries("github", "create task").next(timeout())).resolves.toBe(true);
    expect(asked).toEqual(["create task"]);
  });
});

describe("createLanes: stopping", () => {
  it("rejects queued calls and stops a backoff with InterruptedError, after drain", async () => {
    const controller = new AbortController();
    const { clock, lanes } = setup({}, { signal: controller.signal });
    let seen: AbortSignal | undefined;
    const running = lanes.run("github", {
      name: "slow",
      kind: "write",
      run: async (signal) => {
        seen = signal;
        await clock.sleep(10);
        // An ensure's create failed: its backoff is the one the stop ends.
        await lanes.retries("github", "slow").next(timeout());
      },
    });
    const queued = lanes.run("github", scripted(["never"]));
    await clock.sleep(12);
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(InterruptedError);
    await expect(queued).rejects.toThrow(/Stopped before op on github finished/);
    await lanes.drain();
    expect(seen?.aborted).toBe(true);
  });

  it("drain waits for running work", async () => {
    const { clock, lanes } = setup({ concurrency: 2 });
    let done = 0;
    const work = {
      name: "w",
      kind: "write",
      run: async () => clock.sleep(50).then(() => done++),
    } as const;
    void lanes.run("github", work);
    void lanes.run("github", work);
    void lanes.run("github", work);
    await lanes.drain();
    expect(done).toBe(3);
  });
});
