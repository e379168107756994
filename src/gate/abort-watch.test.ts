import { getEventListeners } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { GateRequest } from "../core/request-gate.js";
import { linkedSignals, watchAbort } from "../core/abort-watch.js";
import { withBothSignals } from "../core/request-gate.js";
import { abortDependants as dependants } from "../../test/support/abort-dependants.js";
import { createGate } from "./gate.js";
import { createSemaphore } from "./semaphore.js";
import { createVirtualClock } from "./virtual-clock.js";

const listeners = (signal: AbortSignal): number => getEventListeners(signal, "abort").length;

describe("watchAbort", () => {
  it("shares one listener among every watch of a signal and removes it with the last", () => {
    const controller = new AbortController();
    const unwatch = Array.from({ length: 50 }, () =>
      watchAbort(controller.signal, () => undefined),
    );
    expect(listeners(controller.signal)).toBe(1);
    for (const u of unwatch.slice(1)) u();
    expect(listeners(controller.signal)).toBe(1);
    unwatch[0]?.();
    expect(listeners(controller.signal)).toBe(0);
  });

  it("calls each watch still in place once on abort, not the ones removed", () => {
    const controller = new AbortController();
    const called: number[] = [];
    const unwatch = [1, 2, 3].map((n) => watchAbort(controller.signal, () => called.push(n)));
    unwatch[1]?.();
    controller.abort(new Error("stop"));
    controller.abort(new Error("again"));
    expect(called).toEqual([1, 3]);
    expect(listeners(controller.signal)).toBe(0);
    // Removing after the abort is harmless; a watch of an aborted signal fires at once.
    for (const u of unwatch) u();
    watchAbort(controller.signal, () => called.push(4));
    expect(called).toEqual([1, 3, 4]);
  });
});

describe("linkedSignals", () => {
  it("aborts with whichever source aborts first, with its reason", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignals(a.signal, undefined, b.signal);
    expect(linked.signal.aborted).toBe(false);
    const reason = new Error("b stopped");
    b.abort(reason);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe(reason);
    linked.release();
    expect(listeners(a.signal)).toBe(0);
  });

  it("is aborted from the start when a source already is", () => {
    const a = new AbortController();
    a.abort(new Error("early"));
    const linked = linkedSignals(new AbortController().signal, a.signal);
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe("early");
    linked.release();
  });

  it("once released, no longer follows its sources and leaves nothing on them", () => {
    const run = new AbortController();
    for (let i = 0; i < 10_000; i++)
      linkedSignals(run.signal, new AbortController().signal).release();
    const last = linkedSignals(run.signal);
    last.release();
    run.abort(new Error("stop"));
    expect(last.signal.aborted).toBe(false);
    expect(listeners(run.signal)).toBe(0);
    expect(dependants(run.signal)).toBe(0);
  });

  it("withBothSignals sends under both, then leaves nothing on a run's long-lived signal", async () => {
    const run = new AbortController();
    for (let i = 0; i < 2_000; i++) {
      const gate = new AbortController();
      const seen = await withBothSignals(run.signal, gate.signal, (both) => Promise.resolve(both));
      expect(seen.aborted).toBe(false);
    }
    expect(listeners(run.signal)).toBe(0);
    expect(dependants(run.signal)).toBe(0);
    // While a request is in flight, stopping the run aborts the signal it was sent with.
    const inFlight = withBothSignals(run.signal, new AbortController().signal, async (both) => {
      await delay(5);
      return both.aborted;
    });
    run.abort(new Error("stopped"));
    expect(await inFlight).toBe(true);
  });

  it("the probe sees what AbortSignal.any, which the requests used, leaves on a source", () => {
    // Without this the zeros above could come from a probe that sees nothing.
    const run = new AbortController();
    const kept = Array.from({ length: 100 }, () =>
      AbortSignal.any([run.signal, new AbortController().signal]),
    );
    expect(dependants(run.signal)).toBe(kept.length);
  });
});

describe("no abort listeners pile up on a run's signal", () => {
  it("a semaphore with many waiters holds one listener, none once they are served", async () => {
    const controller = new AbortController();
    const semaphore = createSemaphore(2);
    const served = Array.from({ length: 200 }, () => semaphore.acquire(controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    for (let i = 0; i < 200; i++) semaphore.release();
    await Promise.all(served);
    expect(listeners(controller.signal)).toBe(0);
  });

  it("an abort rejects every waiter of the semaphore and leaves no listener", async () => {
    const controller = new AbortController();
    const semaphore = createSemaphore(1);
    await semaphore.acquire(controller.signal);
    const waiting = Array.from({ length: 20 }, () => semaphore.acquire(controller.signal));
    controller.abort(new Error("stopped"));
    const results = await Promise.allSettled(waiting);
    expect(results.every((r) => r.status === "rejected")).toBe(true);
    expect(listeners(controller.signal)).toBe(0);
  });

  it("a long run through the gate (5,000 requests, 100 at a time) never holds more than one", async () => {
    const clock = createVirtualClock(1_000_000);
    const controller = new AbortController();
    const gate = createGate({
      system: "tinypm",
      limits: { concurrency: 4, readsPerSecond: 50 },
      clock,
    }).forRun({ signal: controller.signal, onEvent: () => undefined });
    let most = 0;
    const read = (): GateRequest<number> => ({
      system: "tinypm",
      kind: "read",
      name: "GET /stories",
      idempotent: true,
      send: async () => {
        most = Math.max(most, listeners(controller.signal));
        await clock.sleep(20);
        most = Math.max(most, listeners(controller.signal));
        return 1;
      },
    });
    let sent = 0;
    for (let batch = 0; batch < 50; batch++) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => gate.request(read())));
      sent += answers.length;
      expect(listeners(controller.signal)).toBe(0);
    }
    expect(sent).toBe(5_000);
    expect(most).toBe(1);
  });

  it("a clock whose sleep listens to its signal adds its listeners elsewhere, not on the run's", async () => {
    const controller = new AbortController();
    let skew = 0;
    let most = 0;
    // Like the reliability suite's fast clock: node's own abortable timer, one listener a sleep.
    const clock = {
      now: () => Date.now() + skew,
      sleep: async (ms: number, signal?: AbortSignal) => {
        most = Math.max(most, listeners(controller.signal));
        skew += ms;
        await delay(1, undefined, signal ? { signal } : {});
      },
    };
    const gate = createGate({
      system: "tinypm",
      limits: { concurrency: 2, readsPerSecond: 5 },
      clock,
    }).forRun({ signal: controller.signal, onEvent: () => undefined });
    const read = (): GateRequest<number> => ({
      system: "tinypm",
      kind: "read",
      name: "GET /stories",
      idempotent: true,
      send: () => Promise.resolve(1),
    });
    for (let batch = 0; batch < 5; batch++) {
      await Promise.all(Array.from({ length: 40 }, () => gate.request(read())));
      expect(listeners(controller.signal)).toBe(0);
    }
    expect(most).toBe(1);
  });
});
