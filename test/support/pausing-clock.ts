import { createVirtualClock, type Clock } from "../../src/gate/virtual-clock.js";

/**
 * A virtual clock (src/gate/virtual-clock.ts) whose next sleep first lets `during` run to its
 * end: a person's edit made exactly while a paced write waits for its slot in the request gate.
 */
export function clockWithAPause(start = 1_000_000): {
  clock: Clock;
  pauseWith: (during: () => Promise<unknown>) => void;
} {
  const virtual = createVirtualClock(start);
  let pending: (() => Promise<unknown>) | undefined;
  return {
    clock: {
      now: virtual.now,
      sleep: async (ms, signal) => {
        const during = pending;
        pending = undefined;
        if (during !== undefined) await during();
        return virtual.sleep(ms, signal);
      },
    },
    pauseWith: (during) => {
      pending = during;
    },
  };
}
