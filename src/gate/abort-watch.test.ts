import { getEventListeners } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { GateRequest } from "../core/request-gate.js";
import { watchAbort } from "../core/abort-watch.js";
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
