import { StateError } from "../../src/core/errors.js";

/** The create whose link a run is stopped at: by its tinyPM id or its target id. */
export interface Which {
  tinypmId?: string;
  targetId?: string;
}

/** A confirmation refused as a crash would refuse it, when it records the link of `which`. */
const stopConfirm =
  (which: Which, stopped: { n: number }) =>
  (confirm: (...a: unknown[]) => Promise<unknown>) =>
  async (...args: unknown[]): Promise<unknown> => {
    const link = args[1] as Which | undefined;
    if (
      (which.tinypmId !== undefined && link?.tinypmId === which.tinypmId) ||
      (which.targetId !== undefined && link?.targetId === which.targetId)
    ) {
      stopped.n++;
      throw new StateError("state_unavailable", "stopped before the link (test)");
    }
    return confirm(...args);
  };

/**
 * The run's state, stopping the run (as a crash would) where the create's link is recorded: a
 * tinyPM create confirms on its own (`confirmIntent`), a target create with its group inside
 * `transaction` (confirm-group.ts), so both are stopped.
 */
export const stopAtLink =
  (which: Which, stopped: { n: number }) =>
  <S extends object>(state: S): S =>
    new Proxy(state, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        const fn = (value as (...a: unknown[]) => Promise<unknown>).bind(target);
        if (name === "confirmIntent") return stopConfirm(which, stopped)(fn);
        if (name === "transaction")
          return async (body: (tx: object) => Promise<unknown>): Promise<unknown> =>
            fn(async (tx: object) => body(stopAtLink(which, stopped)(tx)));
        return fn;
      },
    });
