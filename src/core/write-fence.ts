import { setMaxListeners } from "node:events";

/**
 * What a run may still write. A run holds its job's lease (src/state/lease.ts); once the lease
 * can no longer be vouched for — the database unreachable for too long, another worker took the
 * job over — the fence closes for good: the request gate refuses the run's next write (and stops
 * its other requests), and the engine refuses its next state record. `core` declares it so that
 * `gate/` and `sync/` share one fence without knowing the state.
 */
export interface WriteFence {
  /** Throws why writing stopped (the lease's loss); returns while writes are allowed. */
  check(): void;
  /** Aborts, with the same reason, when the fence closes. */
  readonly signal: AbortSignal;
}

/** What the fence needs of a lease: its own check and its loss signal. */
export interface FenceLease {
  readonly signal: AbortSignal;
  assertHeld(): void;
}

/** A fence the run's lease is tied to once claimed (the gates are built before the claim). */
export interface LeaseFence extends WriteFence {
  /** Ties the fence to `lease`: it closes when the lease is lost. Once per fence. */
  hold(lease: FenceLease): void;
}

/**
 * A fence that stays open until `hold`'s lease is lost. `check()` asks the lease itself (which
 * looks at the clock, not only at its timers), so a write is refused at the very moment the lease
 * stops being vouched for, even before the lease's own watchdog fired.
 *
 * @example
 * const fence = createWriteFence();
 * const gate = sharedGate.forRun({ fence, signal: stop }); // stops on either; gate.release() at the end
 * fence.hold(await state.claimJob("widgets"));
 */
export function createWriteFence(): LeaseFence {
  const controller = new AbortController();
  // Every request, wait and queued operation of the run listens to it.
  setMaxListeners(0, controller.signal);
  let lease: FenceLease | undefined;
  const close = (reason: unknown): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  return {
    signal: controller.signal,
    check() {
      if (controller.signal.aborted) throw controller.signal.reason;
      if (lease === undefined) return;
      try {
        lease.assertHeld();
      } catch (error) {
        close(error);
        throw error;
      }
    },
    hold(l) {
      lease = l;
      if (l.signal.aborted) close(l.signal.reason);
      else
        l.signal.addEventListener(
          "abort",
          () => {
            close(l.signal.reason);
          },
          { once: true },
        );
    },
  };
}
