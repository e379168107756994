import { describe, expect, it } from "vitest";
import { markRetriesSpent } from "./spent.js";
import {
  AuthError,
  ConfigError,
  InterruptedError,
  LimitWaitError,
  RemoteUnavailableError,
} from "../core/errors.js";
import type { LaneLimits, LaneOp, LanesOptions, QueueEvent } from "./lanes.js";
import { createLanes } from "./lanes.js";
import type { RetryPolicy } from "./retry.js";
import { createVirtualClock } from "./virtual-clock.js";

const ctx = { system: "github", operation: "issues.create" } as const;
const timeout = (): RemoteUnavailableError => new RemoteUnavailableError("socket timeout", ctx);
const policy: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  maxTotalMs: 60_000,
};

function setup(limits: LaneLimits = {}, extra: Partial<LanesOptions> = {}) {
  const clock = createVirtualClock();
  const events: QueueEvent[] = [];
  const lanes = createLanes({
    limits: { github: limits },
    policy,
    onEvent: (e) => events.push(e),
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    ...extra,
  });
  return { clock, events, lanes };
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
  const op: LaneOp<T> = { name: "op", kind: "write", idempotent: true, run, ...extra };
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
      idempotent: true,
      run: async () => {
        most = Math.max(most, ++inFlight);
        await clock.sleep(10);
        inFlight--;
      },
    };
    await Promise.all(Array.from({ length: 5 }, () => lanes.run("github", op)));
    expect(most).toBe(2);
  });

  it("runs a unit safe to repeat again as a whole after an ambiguous failure", async () => {
    const { lanes } = setup();
    const read = scripted<string>([timeout(), "late"], { kind: "read" });
    await expect(lanes.run("github", read)).resolves.toBe("late");
    expect(read.calls).toBe(2);
    // An ensure (look up, create when missing) whose create failed ambiguously runs again whole.
    const ensure = scripted<string>([timeout(), "made"], { kind: "write", idempotent: true });
    await expect(lanes.run("github", ensure)).resolves.toBe("made");
    expect(ensure.calls).toBe(2);
    // A failure the gate already retried to the end is not rerun: retries would multiply.
    const spentError = timeout();
    markRetriesSpent(spentError);
    const dead = scripted<string>([spentError, "x"], { kind: "read" });
    await expect(lanes.run("github", dead)).rejects.toBe(spentError);
    expect(dead.calls).toBe(1);
    // A refusal that is not ambiguous (auth) is never repeated.
    const refused = scripted<string>([new AuthError("bad token", ctx), "x"], { kind: "read" });
    await expect(lanes.run("github", refused)).rejects.toBeInstanceOf(AuthError);
    expect(refused.calls).toBe(1);
  });

  it("passes on what stops a run: auth, a wait past the budget, a create without recover", async () => {
    const { lanes } = setup();
    const auth = scripted<string>([new AuthError("bad token", ctx), "x"]);
    await expect(lanes.run("github", auth)).rejects.toBeInstanceOf(AuthError);
    const budget = new LimitWaitError("held back", {
      system: "github",
      resumeAt: 3_600_000,
      waitMs: 3_600_000,
      reason: "hour",
    });
    const held = scripted<string>([budget, "x"], {
      idempotent: false,
      recover: () => Promise.resolve(undefined),
    });
    await expect(lanes.run("github", held)).rejects.toBe(budget);
    const create = scripted<string>([timeout(), "x"], { idempotent: false });
    await expect(lanes.run("github", create)).rejects.toBeInstanceOf(RemoteUnavailableError);
    expect(auth.calls + held.calls + create.calls).toBe(3);
  });

  it("adds the run's gate counters to its own retries, and rejects bad limits", async () => {
    const use = {
      reads: 3,
      writes: 2,
      notModified: 1,
      byOperation: { "issues.create": 2 },
      retries: 1,
      rateLimitWaits: 1,
      waitedMs: 500,
    };
    const { lanes } = setup({}, { gates: { github: { counters: () => use } } });
    const create = scripted<string>([timeout(), "created"], {
      idempotent: false,
      recover: () => Promise.resolve(undefined),
    });
    await lanes.run("github", create);
    expect(lanes.counters().github).toEqual({ ...use, retries: 2 });
    expect(() => setup({ concurrency: 0 })).toThrow(ConfigError);
  });
});

describe("createLanes: recover after an ambiguous create", () => {
  it("takes the recovered item instead of creating again", async () => {
    const { lanes } = setup();
    let lookups = 0;
    const create = scripted<string>([timeout(), "duplicate!"], {
      idempotent: false,
      recover: () => Promise.resolve(`found-${++lookups}`),
    });
    await expect(lanes.run("github", create)).resolves.toBe("found-1");
    expect(create.calls).toBe(1);
    expect(lanes.counters().github).toMatchObject({ retries: 0 });
  });

  it("creates again when recover finds nothing", async () => {
    const { events, lanes } = setup();
    const create = scripted<string>([timeout(), "created"], {
      idempotent: false,
      recover: () => Promise.resolve(undefined),
    });
    await expect(lanes.run("github", create)).resolves.toBe("created");
    expect(create.calls).toBe(2);
    expect(events).toEqual([
      expect.objectContaining({ type: "retry", code: "remote_unavailable" }),
    ]);
  });

  it("looks again before creating when the lookup itself failed", async () => {
    const { lanes } = setup();
    const answers: (string | undefined | Error)[] = [timeout(), "found"];
    const create = scripted<string>([timeout(), "duplicate!"], {
      idempotent: false,
      recover: () => {
        const answer = answers.shift();
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
      },
    });
    await expect(lanes.run("github", create)).resolves.toBe("found");
    expect(create.calls).toBe(1);
  });

  it("creates after a failed lookup followed by an empty one", async () => {
    const { lanes } = setup();
    const answers: (string | undefined | Error)[] = [timeout(), undefined];
    const create = scripted<string>([timeout(), "created"], {
      idempotent: false,
      recover: () => {
        const answer = answers.shift();
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
      },
    });
    await expect(lanes.run("github", create)).resolves.toBe("created");
    expect(create.calls).toBe(2);
  });
});

describe("createLanes: stopping", () => {
  it("rejects queued calls and stops a backoff with InterruptedError, after drain", async () => {
    const controller = new AbortController();
    const { clock, lanes } = setup({}, { signal: controller.signal });
    let seen: AbortSignal | undefined;
    // A create whose effect was not found backs off before running again: the stop ends that.
    const running = lanes.run("github", {
      name: "slow",
      kind: "write",
      idempotent: false,
      recover: () => Promise.resolve(undefined),
      run: async (signal) => {
        seen = signal;
        await clock.sleep(10);
        throw timeout();
      },
    });
    const queued = lanes.run("github", scripted(["never"]));
    await clock.sleep(20);
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
      idempotent: true,
      run: async () => clock.sleep(50).then(() => done++),
    } as const;
    void lanes.run("github", work);
    void lanes.run("github", work);
    void lanes.run("github", work);
    await lanes.drain();
    expect(done).toBe(3);
  });
});
