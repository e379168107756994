import { hostname } from "node:os";
import { InternalError, StateError } from "../core/errors.js";
import type { ItemKind } from "../core/model.js";
import { jobLockedError, type JobLease, type WorkerRecord } from "./lease.js";
import type { LinkRecord } from "./records.js";
import {
  openSqliteStore,
  type SqliteStore as SyncStore,
  type SqliteStoreOptions,
} from "./sqlite-store.js";
import type { StateData, StateStore } from "./store.js";
import { sleep } from "../core/sleep.js";

/** The data methods that map one to one onto the synchronous store (all but `links`). */
const DATA_METHODS = [
  "getLinkByTinypm",
  "getLinkByTarget",
  "countLinks",
  "countLinksByKind",
  "putLink",
  "updateBase",
  "recordPendingWrites",
  "deleteLink",
  "getLinkIdentity",
  "putLinkIdentity",
  "getCheckpoint",
  "setCheckpoint",
  "recordIntent",
  "recordIntents",
  "confirmIntent",
  "pendingIntents",
  "dropIntent",
  "claimImport",
  "importClaims",
  "claimsOf",
  "startRun",
  "finishRun",
  "runs",
  "parkFailure",
  "failures",
  "clearFailure",
  "openConflict",
  "conflicts",
  "resolveConflict",
  "markConflictApplied",
  "settleConflict",
  "requestRun",
  "settleRunRequest",
  "runRequests",
] as const satisfies readonly (keyof StateData)[];

type Call = <T>(fn: () => T) => Promise<T>;

/** The asynchronous data methods over the synchronous store, each run through `call`. */
function dataOf(sync: SyncStore, call: Call): StateData {
  const methods = Object.fromEntries(
    DATA_METHODS.map((name) => [
      name,
      (...args: unknown[]) =>
        call(() => (sync[name] as (...a: unknown[]) => unknown).apply(sync, args)),
    ]),
  ) as unknown as Omit<StateData, "links">;
  return {
    ...methods,
    links: (job: string, kind?: ItemKind): AsyncIterable<LinkRecord> => ({
      async *[Symbol.asyncIterator]() {
        // The synchronous generator reads one page at a time; each page waits its turn.
        const pages = sync.links(job, kind);
        for (;;) {
          const next = await call(() => pages.next());
          if (next.done === true) return;
          yield next.value;
        }
      },
    }),
  };
}

async function openWithWait(options: SqliteStoreOptions): Promise<SyncStore> {
  const waitMs = options.waitForLockMs ?? 0;
  const started = Date.now();
  for (;;) {
    try {
      // Never block the thread: poll the lock instead of the synchronous store's blocking wait.
      return openSqliteStore({ ...options, waitForLockMs: 0 });
    } catch (error) {
      const waited = Date.now() - started;
      if (!(error instanceof StateError) || error.code !== "state_locked" || waited >= waitMs) {
        if (error instanceof StateError && error.code === "state_locked" && waitMs > 0) {
          throw new StateError(
            "state_locked",
            error.message.replace(/waited \d+ ms/, `waited ${waited} ms`),
            {
              hint: error.hint,
              details: error.details,
            },
          );
        }
        throw error;
      }
      await sleep(Math.min(50, waitMs - waited));
    }
  }
}

/**
 * Opens an SQLite state file as an asynchronous `StateStore`: the synchronous better-sqlite3
 * store underneath, with one transaction at a time that may span awaits (other calls wait for
 * it). The file lock holds the whole state for this process, so a job lease only keeps two runs
 * of one job in this process apart.
 */
export async function openSqliteState(options: SqliteStoreOptions): Promise<StateStore> {
  return sqliteStateOver(await openWithWait(options), options.readOnly === true);
}

/**
 * The asynchronous store over a synchronous one already open (tests that inspect the file
 * synchronously hand the same store to the engine). Closing either closes the file.
 */
export function sqliteStateOver(sync: SyncStore, readOnly = false): StateStore {
  const openedAt = new Date().toISOString();
  let current: Promise<unknown> = Promise.resolve();
  let inTransaction = false;
  // Outside a transaction a call runs at once; during one it waits for the transaction to end.
  const call: Call = async <T>(fn: () => T): Promise<T> => {
    while (inTransaction) await current.catch(() => undefined);
    return fn();
  };
  const direct: Call = <T>(fn: () => T): Promise<T> => Promise.resolve().then(fn);
  const held = new Map<string, string>();
  const claimJob = async (job: string, opts: { waitMs?: number } = {}): Promise<JobLease> => {
    if (readOnly) {
      throw new InternalError(
        `Cannot claim job ${job} on a read-only state (a bug in the caller).`,
      );
    }
    const started = Date.now();
    while (held.has(job)) {
      const waited = Date.now() - started;
      if (waited >= (opts.waitMs ?? 0)) {
        throw jobLockedError(
          sync.path,
          job,
          { pid: process.pid, host: hostname(), since: held.get(job) ?? openedAt },
          waited,
        );
      }
      await sleep(Math.min(50, (opts.waitMs ?? 0) - waited));
    }
    held.set(job, new Date().toISOString());
    const controller = new AbortController();
    let released = false;
    return {
      job,
      signal: controller.signal,
      assertHeld: () => {
        if (released) throw new InternalError(`The lease of job ${job} was already released.`);
      },
      release: () => {
        if (!released) held.delete(job);
        released = true;
        return Promise.resolve();
      },
    };
  };
  return {
    backend: "sqlite",
    location: sync.path,
    tookOverLockFrom: sync.tookOverLockFrom,
    ...dataOf(sync, call),
    async transaction<T>(fn: (tx: StateData) => Promise<T>): Promise<T> {
      while (inTransaction) await current.catch(() => undefined);
      inTransaction = true;
      const run = (async () => {
        sync.begin();
        try {
          const result = await fn(dataOf(sync, direct));
          sync.commit();
          return result;
        } catch (error) {
          sync.rollback();
          throw error;
        }
      })();
      current = run;
      try {
        return await run;
      } finally {
        inTransaction = false;
      }
    },
    claimJob,
    // No heartbeat on a file: the one process holding its lock, checked alive by its pid now.
    workers: (): Promise<WorkerRecord[]> =>
      call(() => {
        const at = new Date().toISOString();
        if (!readOnly) {
          return [
            {
              id: `pid-${process.pid}`,
              workerId: sync.workerId,
              host: hostname(),
              pid: process.pid,
              startedAt: openedAt,
              heartbeatAt: at,
              silentMs: 0,
              alive: true,
              jobs: [...held.keys()].sort(),
            },
          ];
        }
        const holder = sync.liveHolder();
        if (holder === undefined) return [];
        // Its jobs: the runs it journalled as started and not finished.
        const open = sync
          .runs({ limit: 200 })
          .filter((r) => r.pid === holder.pid && r.finishedAt === undefined);
        const jobs = open.map((r) => r.job);
        return [
          {
            id: `pid-${holder.pid}`,
            workerId: open.find((r) => r.workerId !== undefined)?.workerId,
            host: holder.host,
            pid: holder.pid,
            startedAt: holder.acquiredAt,
            heartbeatAt: at,
            silentMs: 0,
            alive: true,
            jobs: [...new Set(jobs)].sort(),
          },
        ];
      }),
    liveHolder: () => call(() => sync.liveHolder()),
    integrityCheck: () => call(() => sync.integrityCheck()),
    tables: sync.tables,
    close: async () => {
      while (inTransaction) await current.catch(() => undefined);
      held.clear();
      sync.close();
    },
    stopNow: (interruptRuns: boolean) => {
      if (interruptRuns && !readOnly) sync.interruptOwnRuns();
      held.clear();
      sync.close();
    },
  };
}
