import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { InterruptedError } from "../../src/core/errors.js";
import { createWriteFence } from "../../src/core/write-fence.js";
import { openSharedGate } from "../../src/gate/gate-registry.js";
import { abortDependants } from "../support/abort-dependants.js";

const owner = { system: "github" as const, baseUrl: "http://127.0.0.1:1", token: "tok-release" };

/** A process's stop signal (`serve`'s) outlives each run: a run's gate must leave nothing on it. */
describe("a run's gate on a stop signal that outlives it", () => {
  it("leaves no entry and no listener on the signal once each of 200 runs closes", async () => {
    const processStop = new AbortController();
    for (let i = 0; i < 200; i++) {
      const gate = openSharedGate(
        owner,
        { concurrency: 2 },
        {
          signal: processStop.signal,
          fence: createWriteFence(),
        },
      );
      const answer = await gate.request({
        system: "github",
        kind: "read",
        idempotent: true,
        name: `GET /run/${i}`,
        send: () => Promise.resolve({ status: 200 }),
      });
      expect(answer).toEqual({ status: 200 });
      gate.close();
    }
    expect(abortDependants(processStop.signal)).toBe(0);
    expect(getEventListeners(processStop.signal, "abort")).toHaveLength(0);
  });

  it("still stops a run's waiting request when the process stops, or when its lease is lost", async () => {
    const processStop = new AbortController();
    const fence = createWriteFence();
    const gate = openSharedGate(owner, { concurrency: 1 }, { signal: processStop.signal, fence });
    // One request holds the only place (its answer never comes); the next waits for it.
    const held = gate.request({
      system: "github",
      kind: "read",
      idempotent: true,
      name: "GET /held",
      send: () => new Promise<{ status: number }>(() => undefined),
    });
    const waiting = gate.request({
      system: "github",
      kind: "read",
      idempotent: true,
      name: "GET /waiting",
      send: () => Promise.resolve({ status: 200 }),
    });
    processStop.abort(new InterruptedError("stopped by SIGTERM"));
    await expect(held).rejects.toBeInstanceOf(InterruptedError);
    await expect(waiting).rejects.toBeInstanceOf(InterruptedError);
    gate.close();
    // The fence alone stops a run of a process that keeps going.
    const lost = createWriteFence();
    const other = openSharedGate(
      owner,
      { concurrency: 1 },
      {
        signal: new AbortController().signal,
        fence: lost,
      },
    );
    lost.hold({
      signal: AbortSignal.abort(new Error("lease lost")),
      assertHeld: () => {
        throw new Error("lease lost");
      },
    });
    await expect(
      other.request({
        system: "github",
        kind: "read",
        idempotent: true,
        name: "GET /after",
        send: () => Promise.resolve({ status: 200 }),
      }),
    ).rejects.toThrow();
    other.close();
  });
});
