import { describe, expect, it } from "vitest";
import {
  InterruptedError,
  LimitWaitError,
  RateLimitError,
  RemoteUnavailableError,
} from "../core/errors.js";
import type { GateEvent, GateRequest, RequestKind } from "../core/request-gate.js";
import { createGate, type GateOptions } from "./gate.js";
import { openSharedGate, sharedGateHolders } from "./gate-registry.js";
import { createVirtualClock, type Clock } from "./virtual-clock.js";

function setup(limits: GateOptions["limits"], run: { maxWaitMs?: number } = {}) {
  const clock = createVirtualClock(1_000_000);
  const events: GateEvent[] = [];
  const controller = new AbortController();
  const gate = createGate({ system: "github", limits, clock, random: () => 0.5 }).forRun({
    signal: controller.signal,
    onEvent: (e) => events.push(e),
    ...run,
  });
  const starts: number[] = [];
  const req = (kind: RequestKind, o: Partial<GateRequest<number>> = {}): GateRequest<number> => ({
    system: "github",
    kind,
    name: `${kind} ${starts.length}`,
    idempotent: kind !== "write",
    send: () => {
      starts.push(clock.now() - 1_000_000);
      return Promise.resolve(starts.length);
    },
    ...o,
  });
  return { clock, events, controller, gate, starts, req };
}

describe("createGate", () => {
  it("counts the run's API use as requests are answered: reads, writes, 304s and operations", async () => {
    const { gate, req } = setup({});
    await gate.request(req("read", { operation: "issue.get" }));
    await gate.request(req("read", { operation: "issue.get" }));
    await gate.request(req("search"));
    await gate.request(req("write", { operation: "issue.bulkCreate" }));
    // A conditional read answered 304: counted apart, not as a read.
    await gate.request(req("read", { send: () => Promise.resolve({ status: 304 }) as never }));
    const failing = req("write", {
      operation: "issue.edit",
      idempotent: false,
      send: () => Promise.reject(new Error("refused")),
    });
    await expect(gate.request(failing)).rejects.toThrow("refused");
    expect(gate.counters()).toMatchObject({
      reads: 3,
      writes: 2,
      notModified: 1,
      byOperation: { "issue.get": 2, "issue.bulkCreate": 1, "issue.edit": 1 },
    });
  });

  it("counts a read-modify-write as its read, and as a write only when the write was sent", async () => {
    const { gate, req } = setup({});
    let wrote = false;
    const rmw = (sends: boolean): GateRequest<number> =>
      req("write", {
        operation: "issues.update",
        idempotent: true,
        readFirst: { operation: "issues.get", wrote: () => wrote },
        send: () => {
          wrote = sends;
          return Promise.resolve(200);
        },
      });
    await gate.request(rmw(true));
    // The read showed a person's edit: nothing sent after it.
    await gate.request(rmw(false));
    expect(gate.counters()).toMatchObject({
      reads: 2,
      writes: 1,
      byOperation: { "issues.get": 2, "issues.update": 1 },
    });
  });

  it("paces reads per second, request by request", async () => {
    const { gate, starts, req } = setup({ readsPerSecond: 5 });
    await Promise.all(Array.from({ length: 10 }, () => gate.request(req("read"))));
    expect(starts).toEqual([0, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800]);
  });

  it("holds writes past a full minute window and says so with one wait_start/wait_end", async () => {
    const { gate, starts, req, events } = setup({ writesPerMinute: 3 });
    await Promise.all(Array.from({ length: 4 }, () => gate.request(req("write"))));
    expect(starts).toEqual([0, 20_000, 40_000, 60_000]);
    const waits = events.filter((e) => e.type === "wait_start" || e.type === "wait_end");
    expect(waits.map((e) => e.type)).toEqual(["wait_start", "wait_end"]);
    expect(waits[0]).toMatchObject({ reason: "minute", until: 1_020_000 });
    expect(gate.counters()).toMatchObject({ writes: 4, rateLimitWaits: 1, waitedMs: 60_000 });
  });

  it("keeps a keyed window per key, apart from other keys", async () => {
    const { gate, starts, req } = setup({ keyWindows: [{ max: 2, ms: 2_000 }] });
    for (let i = 0; i < 3; i++) await gate.request(req("write", { key: "A-1" }));
    await gate.request(req("write", { key: "A-2" }));
    expect(starts).toEqual([0, 0, 2_000, 2_000]);
  });

  it("honours Retry-After: the refused write waits, then goes again, and so do the others", async () => {
    const { gate, starts, req, events, clock } = setup({});
    let refused = false;
    const write = req("write", {
      send: () => {
        starts.push(clock.now() - 1_000_000);
        if (!refused) {
          refused = true;
          return Promise.reject(
            new RateLimitError(
              "slow down",
              { system: "github", operation: "POST" },
              {
                retryAfterMs: 5_000,
                limit: "secondary",
              },
            ),
          );
        }
        return Promise.resolve(1);
      },
    });
    await expect(gate.request(write)).resolves.toBe(1);
    await gate.request(req("read"));
    expect(starts).toEqual([0, 5_000, 5_000]);
    expect(events.filter((e) => e.type === "wait_start")).toMatchObject([{ reason: "service" }]);
    expect(gate.counters()).toMatchObject({ retries: 1, writes: 2, reads: 1 });
  });

  it("holds every later request as long as an answer asks (an empty token bucket), as a service wait", async () => {
    const { gate, starts, req, events } = setup({});
    await gate.request(req("read", { holdMs: () => 0 }));
    await gate.request(req("read", { holdMs: () => 2_500 }));
    await gate.request(req("write"));
    await gate.request(req("read", { holdMs: () => undefined }));
    expect(starts).toEqual([0, 0, 2_500, 2_500]);
    expect(events.filter((e) => e.type === "wait_start")).toMatchObject([
      { reason: "service", until: 1_002_500 },
    ]);
  });

  it("retries a transient failure of an idempotent request, never of a create", async () => {
    const { gate, req } = setup({});
    const flaky = (idempotent: boolean) => {
      let n = 0;
      return req(idempotent ? "read" : "write", {
        idempotent,
        send: () =>
          ++n === 1
            ? Promise.reject(
                new RemoteUnavailableError("reset", { system: "github", operation: "x" }),
              )
            : Promise.resolve(n),
      });
    };
    await expect(gate.request(flaky(true))).resolves.toBe(2);
    await expect(gate.request(flaky(false))).rejects.toBeInstanceOf(RemoteUnavailableError);
  });

  it("ends a 50-minute wait the moment the run is stopped", async () => {
    const virtual = createVirtualClock(1_000_000);
    const controller = new AbortController();
    const events: GateEvent[] = [];
    // The run is stopped once the gate sleeps through the hour's wait: a moment the test knows,
    // where polling for it and timing the stop by the wall clock hung on the machine's speed.
    // On a virtual clock, a wait the stop did not end would end only when its time had passed.
    const clock: Clock = {
      now: virtual.now,
      sleep: (ms, signal) => {
        const asleep = virtual.sleep(ms, signal);
        if (ms > 60_000) controller.abort(new Error("SIGINT"));
        return asleep;
      },
    };
    const gate = createGate({ system: "github", limits: { writesPerHour: 1 }, clock }).forRun({
      signal: controller.signal,
      maxWaitMs: Infinity,
      onEvent: (e) => events.push(e),
    });
    const write: GateRequest<number> = {
      system: "github",
      kind: "write",
      name: "POST /issues",
      idempotent: false,
      send: () => Promise.resolve(1),
    };
    await gate.request(write);
    const before = virtual.now();
    await expect(gate.request(write)).rejects.toBeInstanceOf(InterruptedError);
    expect(virtual.now()).toBe(before);
    expect(events.slice(-2)).toMatchObject([
      { type: "wait_start", reason: "hour" },
      { type: "wait_end", waitedMs: 0 },
    ]);
  });

  it("stops before the request when a wait exceeds the run's budget, naming when to rerun", async () => {
    const { gate, req, starts } = setup({ writesPerHour: 1 }, { maxWaitMs: 600_000 });
    await gate.request(req("write"));
    const error = await gate.request(req("write")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitWaitError);
    expect(error).toMatchObject({ code: "limit_wait", resumeAt: 1_000_000 + 3_600_000 });
    expect((error as Error).message).toMatch(/hourly limit until 1970-01-01T01:16:40Z/);
    expect(starts).toEqual([0]);
  });

  it("holds writes sent at once to the run's budget too: the one the window cannot take stops", async () => {
    const { gate, req, starts } = setup({ writesPerHour: 2 }, { maxWaitMs: 600_000 });
    // All three see a free window when they arrive; the later ones find the slot taken by the
    // write queued before them, and their waits (half an hour and more) are refused, not slept.
    const results = await Promise.allSettled([1, 2, 3].map(() => gate.request(req("write"))));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    for (const r of results.slice(1))
      expect(r.status === "rejected" ? r.reason : undefined).toBeInstanceOf(LimitWaitError);
    expect(starts).toEqual([0]);
  });

  it("bounds a request that gets no answer", async () => {
    const gate = createGate({ system: "tinypm", limits: { timeoutMs: 30 }, label: "tinyPM (x)" });
    const run = gate.forRun();
    const error = await run
      .request({
        system: "tinypm",
        kind: "write",
        name: "PUT story 1",
        idempotent: false,
        send: () => new Promise(() => undefined),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteUnavailableError);
    expect((error as Error).message).toBe("tinyPM (x) did not answer PUT story 1 within 0.03 s.");
  });

  it("keeps at most `concurrency` requests in flight", async () => {
    const { gate, req } = setup({ concurrency: 2 });
    let inFlight = 0;
    let most = 0;
    const slow = req("read", {
      send: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return 0;
      },
    });
    await Promise.all(Array.from({ length: 6 }, () => gate.request(slow)));
    expect(most).toBe(2);
  });
});

describe("openSharedGate", () => {
  it("gives runs of one token one budget, and another token its own", async () => {
    const clock = createVirtualClock(0);
    const owner = { system: "github" as const, baseUrl: "http://127.0.0.1:1/", token: "t-1" };
    const limits = { writesPerMinute: 2 };
    const a = openSharedGate(owner, limits, { maxWaitMs: Infinity }, { clock });
    const b = openSharedGate({ ...owner, baseUrl: "http://127.0.0.1:1" }, limits, {}, { clock });
    const other = openSharedGate({ ...owner, token: "t-2" }, limits, {}, { clock });
    expect(sharedGateHolders(owner)).toBe(2);
    const at: number[] = [];
    const write = (name: string): GateRequest<void> => ({
      system: "github",
      kind: "write",
      name,
      idempotent: false,
      send: () => {
        at.push(clock.now());
        return Promise.resolve();
      },
    });
    await a.request(write("a1"));
    await b.request(write("b1"));
    await other.request(write("o1"));
    await a.request(write("a2"));
    expect(at).toEqual([0, 30_000, 30_000, 60_000]);
    a.close();
    b.close();
    other.close();
    expect(sharedGateHolders(owner)).toBe(0);
  });
});
