import type { StateData, StateStore } from "../state/store.js";

/** The state calls that record something of the run (everything but reads and the journal). */
const RECORDS: ReadonlySet<string> = new Set([
  "putLink",
  "updateBase",
  "recordPendingWrites",
  "deleteLink",
  "putLinkIdentity",
  "setCheckpoint",
  "recordIntent",
  "recordIntents",
  "confirmIntent",
  "dropIntent",
  "claimImport",
  "parkFailure",
  "clearFailure",
  "openConflict",
  "resolveConflict",
  "markConflictApplied",
  "settleConflict",
] satisfies (keyof StateData)[]);

/**
 * `data` whose every record (link, base, intent, checkpoint, failure, conflict) first asks
 * `check` — the run's lease — and is refused with its error once the lease is lost, so a run
 * that lost its job records nothing more: its pending intents stay for the next holder to settle.
 */
function guardData<D extends StateData>(data: D, check: () => void): D {
  return new Proxy(data, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (typeof name !== "string" || !RECORDS.has(name)) return fn.bind(target);
      return async (...args: unknown[]): Promise<unknown> => {
        check();
        return await fn.apply(target, args);
      };
    },
  });
}

/**
 * The run's view of the state: records refused once the lease is lost (above), and each
 * transaction checked again just before it commits — a lease lost while the transaction ran
 * rolls it back whole. The run journal (`startRun`, `finishRun`) is not guarded: the run's end
 * is recorded whatever happened.
 */
export function guardStateWrites(state: StateStore, check: () => void): StateStore {
  const guarded = guardData(state, check);
  return new Proxy(guarded, {
    get(target, name, receiver) {
      if (name !== "transaction") return Reflect.get(target, name, receiver) as unknown;
      return async <T>(fn: (tx: StateData) => Promise<T>): Promise<T> => {
        check();
        return state.transaction(async (tx) => {
          const result = await fn(guardData(tx, check));
          check();
          return result;
        });
      };
    },
  });
}
