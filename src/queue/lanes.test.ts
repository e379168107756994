import { describe, expect, it } from "vitest";
import {
  AuthError,
  ConfigError,
  InterruptedError,
  RateLimitError,
  RemoteUnavailableError,
} from "../core/errors.js";
import type { LaneLimits, LaneOp, LanesOptions, QueueEvent } from "./lanes.js";
import { createLanes } from "./lanes.js";
import { remoteRead } from "../core/remote-read.js";
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

describe("createLanes: pacing", () => {
  it("keeps at most `concurrency` calls in flight", async () => {
    const { clock, lanes } = setup({ concurrency: 2 });
    let inFlight = 0;
    let most = 0;
    const work = async (): Promise<void> => {
      inFlight++;
      most = Math.max(most, inFlight);
      await clock.sleep(100);
      inFlight--;
    };
    await Promise.all(
      Array.from({ length: 6 }, () =>
        lanes.run("github", { name: "w", kind: "read", idempotent: true, run: work }),
      ),
    );
    expect(most).toBe(2);
    expect(clock.now()).toBe(300);
    expect(lanes.counters().github).toMatchObject({ reads: 6, writes: 0 });
  });

  it("runs writes at the permitted rate per minute and hour, never over it", async () => {
    const { clock, lanes } = setup({ concurrency: 4, writesPerMinute: 80, writesPerHour: 500 });
    const starts: number[] = [];
    const op = {
      name: "create",
      kind: "write",
      idempotent: true,
      run: () => Promise.resolve(starts.push(clock.now())),
    } as const;
    await Promise.all(Array.from({ length: 600 }, () => lanes.run("github", op)));
    const inWindow = (from: number, ms: number): number =>
      starts.filter((s) => s >= from && s < from + ms).length;
    expect(Math.max(...starts.map((s) => inWindow(s, 60_000)))).toBe(80);
    expect(Math.max(...starts.map((s) => inWindow(s, 3_600_000)))).toBe(500);
    expect(inWindow(0, 60_000)).toBe(80);
    expect(inWindow(0, 3_600_000)).toBe(500);
    expect(starts.at(-1)).toBeLessThan(3_600_000 + 100 * 750);
  });

  it("paces reads per second apart from writes", async () => {
    const { clock, lanes } = setup({ concurrency: 3, readsPerSecond: 10, writesPerMinute: 1 });
    const reads: number[] = [];
    const read = {
      name: "get",
      kind: "read",
      idempotent: true,
      run: () => Promise.resolve(reads.push(clock.now())),
    } as const;
    const write = scripted(["ok"]);
    await Promise.all([
      ...Array.from({ length: 25 }, () => lanes.run("github", read)),
      lanes.run("github", write),
    ]);
    expect(reads.filter((s) => s < 1_000)).toHaveLength(10);
    expect(reads.at(-1)).toBe(2_400);
  });

  it("creates a lane with defaults for a system without limits, and rejects bad limits", async () => {
    const { lanes } = setup();
    await expect(lanes.run("jira", scripted([1]))).resolves.toBe(1);
    expect(Object.keys(lanes.counters())).toEqual(["github", "jira"]);
    expect(() => createLanes({ limits: { github: { writesPerMinute: 0 } } })).toThrow(ConfigError);
    expect(() => createLanes({ limits: { jira: { concurrency: 1.5 } } })).toThrow(
      /concurrency must be a positive number \(got 1.5\)/,
    );
  });
});

describe("createLanes: rate limits and retries", () => {
  it("pauses the whole lane for retryAfterMs and reports the exact wait", async () => {
    const { clock, events, lanes } = setup({ concurrency: 2 });
    const limited = scripted([new RateLimitError("429", ctx, { retryAfterMs: 5_000 }), "created"], {
      name: "create #1",
    });
    const first = lanes.run("github", limited);
    await clock.sleep(1);
    let otherStartedAt = -1;
    const other = lanes.run(
      "github",
      scripted(["x"], {
        run: () => {
          otherStartedAt = clock.now();
          return Promise.resolve("x");
        },
      }),
    );
    await expect(first).resolves.toBe("created");
    await other;
    expect(otherStartedAt).toBe(5_000);
    expect(events).toEqual([
      { type: "rate_limited", system: "github", waitMs: 5_000, operation: "create #1" },
      {
        type: "retry",
        system: "github",
        attempt: 1,
        delayMs: 5_000,
        code: "rate_limited",
        operation: "create #1",
        reason: "429",
      },
    ]);
    expect(lanes.counters().github).toEqual({
      reads: 0,
      writes: 3,
      retries: 1,
      rateLimitWaits: 1,
      waitedMs: 5_000,
    });
  });

  it("retries a transient failure of an idempotent call with backoff", async () => {
    const { clock, events, lanes } = setup();
    const op = scripted([timeout(), timeout(), "ok"]);
    await expect(lanes.run("github", op)).resolves.toBe("ok");
    expect(op.calls).toBe(3);
    expect(events.map((e) => (e.type === "retry" ? e.delayMs : -1))).toEqual([50, 100]);
    expect(clock.now()).toBe(150);
  });

  it("throws the last error once the attempt budget is spent", async () => {
    const { events, lanes } = setup();
    const last = timeout();
    const op = scripted([timeout(), timeout(), timeout(), last]);
    await expect(lanes.run("github", op)).rejects.toBe(last);
    expect(op.calls).toBe(4);
    expect(events).toHaveLength(3);
    expect(lanes.counters().github?.retries).toBe(3);
  });

  it("gives up on a rate limit longer than the time budget, still pausing the lane", async () => {
    const { events, lanes } = setup();
    const error = new RateLimitError("429", ctx, { retryAfterMs: 3_600_000 });
    await expect(lanes.run("github", scripted([error]))).rejects.toBe(error);
    expect(events).toEqual([
      { type: "rate_limited", system: "github", waitMs: 3_600_000, operation: "op" },
    ]);
  });

  it("never retries auth errors or non-idempotent calls without recover", async () => {
    const { lanes } = setup();
    const auth = scripted([new AuthError("401", ctx), "ok"]);
    await expect(lanes.run("github", auth)).rejects.toBeInstanceOf(AuthError);
    const create = scripted([timeout(), "ok"], { idempotent: false });
    await expect(lanes.run("github", create)).rejects.toBeInstanceOf(RemoteUnavailableError);
    expect([auth.calls, create.calls]).toEqual([1, 1]);
  });

  it("pauses a lane on request, e.g. from a spent-quota header", async () => {
    const { clock, events, lanes } = setup();
    lanes.pause("github", 2_000, "headers");
    await lanes.run("github", scripted(["ok"]));
    expect(clock.now()).toBe(2_000);
    expect(events).toEqual([
      { type: "rate_limited", system: "github", waitMs: 2_000, operation: "headers" },
    ]);
  });
});

describe("createLanes: requests within a read", () => {
  /** A request that fails with the script's errors first, then answers its name. */
  const flaky = (name: string, failures: Error[]) => {
    let calls = 0;
    return {
      read: () =>
        remoteRead(name, () =>
          calls < failures.length ? Promise.reject(failures[calls++]!) : Promise.resolve(name),
        ),
      calls: () => calls,
    };
  };

  it("retries each failed request on its own instead of the whole read", async () => {
    const { events, lanes } = setup();
    const pages = [
      flaky("page 1", []),
      flaky("page 2", [timeout(), timeout()]),
      flaky("page 3", [timeout()]),
    ];
    let runs = 0;
    const read = lanes.run("github", {
      name: "list issues",
      kind: "read",
      idempotent: true,
      run: async () => {
        runs++;
        const out: string[] = [];
        for (const page of pages) out.push(await page.read());
        return out;
      },
    });
    await expect(read).resolves.toEqual(["page 1", "page 2", "page 3"]);
    expect(runs).toBe(1);
    expect(pages.map((p) => p.calls())).toEqual([0, 2, 1]);
    expect(events.filter((e) => e.type === "retry").map((e) => e.operation)).toEqual([
      "page 2",
      "page 2",
      "page 3",
    ]);
  });

  it("does not start the read over once a request spent its own retries", async () => {
    const { lanes } = setup();
    const last = timeout();
    const page = flaky("page 1", [timeout(), timeout(), timeout(), last]);
    let runs = 0;
    const op: LaneOp<string> = {
      name: "list issues",
      kind: "read",
      idempotent: true,
      run: () => {
        runs++;
        return page.read();
      },
    };
    await expect(lanes.run("github", op)).rejects.toBe(last);
    expect([runs, page.calls()]).toEqual([1, 4]);
  });

  it("waits out a rate-limit pause between requests, and leaves writes whole", async () => {
    const { clock, lanes } = setup();
    const limited = new RateLimitError("429", ctx, { retryAfterMs: 5_000 });
    const page = flaky("page 1", [limited]);
    await expect(
      lanes.run("github", { name: "read", kind: "read", idempotent: true, run: () => page.read() }),
    ).resolves.toBe("page 1");
    expect(clock.now()).toBe(5_000);
    // In a write, a request runs once: the write is retried as a unit.
    const inWrite = flaky("fresh GET", [timeout()]);
    let writes = 0;
    const write = lanes.run("github", {
      name: "update",
      kind: "write",
      idempotent: true,
      run: () => {
        writes++;
        return inWrite.read();
      },
    });
    await expect(write).resolves.toBe("fresh GET");
    expect([writes, inWrite.calls()]).toEqual([2, 1]);
  });

  it("paces every request of a read on a per-request lane, and only the read on others", async () => {
    const starts = async (pace: "call" | "request"): Promise<number[]> => {
      const { clock, lanes } = setup({ readsPerSecond: 10, pace });
      const at: number[] = [];
      const request = (): Promise<number> =>
        remoteRead("GET", () => Promise.resolve(at.push(clock.now())));
      await lanes.run("github", {
        name: "scan",
        kind: "read",
        idempotent: true,
        run: () => Promise.all(Array.from({ length: 25 }, request)),
      });
      return at;
    };
    const perRequest = await starts("request");
    expect(perRequest).toHaveLength(25);
    // 10 per second: the 11th request waits a second, the 25th starts at 2.4 s.
    expect(perRequest.filter((t) => t < 1_000)).toHaveLength(10);
    expect(perRequest.at(-1)).toBe(2_400);
    // Paced per call, a read of 25 requests is one start: all of them at once.
    expect(await starts("call")).toEqual(Array.from({ length: 25 }, () => 0));
  });

  it("runs a request once outside any lane", async () => {
    const page = flaky("page", [timeout()]);
    await expect(page.read()).rejects.toBeInstanceOf(RemoteUnavailableError);
    await expect(page.read()).resolves.toBe("page");
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
    expect(lanes.counters().github).toMatchObject({ reads: 1, writes: 1, retries: 0 });
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
    const running = lanes.run("github", {
      name: "slow",
      kind: "read",
      idempotent: true,
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
