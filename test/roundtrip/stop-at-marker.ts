import { InterruptedError } from "../../src/core/errors.js";
import type { Tracker } from "../../src/core/tracker.js";

/**
 * The run's target tracker, stopping the run (as a kill would) where it writes into the target
 * item `targetId` — an import's marker write, after its tinyPM create: nothing is sent, so the
 * target holds nothing that names the copy.
 */
export const stopAtMarker =
  (targetId: string, stopped: { n: number }) =>
  (tracker: Tracker): Tracker => {
    const update: Tracker["update"] = async (ref, patch, opts) => {
      if (ref.id !== targetId) return tracker.update(ref, patch, opts);
      stopped.n++;
      throw new InterruptedError("stopped before the marker write (test)");
    };
    return new Proxy(tracker, {
      get: (target, prop, receiver) =>
        prop === "update" ? update : (Reflect.get(target, prop, receiver) as unknown),
    });
  };
