import { resolve } from "node:path";
import type { LeaseTiming } from "./postgres/pg-lease.js";
import { isPostgresUrl, redactUrl } from "./postgres-url.js";
import { openSqliteState } from "./sqlite-state.js";
import type { StateStore } from "./store.js";

/** Where a state lives: an SQLite file, or a PostgreSQL database. */
export type StateLocation =
  | { readonly backend: "sqlite"; readonly path: string }
  | { readonly backend: "postgres"; readonly url: string };

/** Options of `openState`, for either backend. */
export interface OpenStateOptions {
  /** Read without taking the lock or joining as a worker; every write throws. */
  readonly readOnly?: boolean | undefined;
  /** SQLite: how long to wait for the process holding the file, in ms. @default 0 */
  readonly waitForLockMs?: number | undefined;
  /** The clock of stored record timestamps. */
  readonly now?: (() => Date) | undefined;
  /** PostgreSQL: lease life and heartbeat (tests shorten them). */
  readonly lease?: LeaseTiming | undefined;
  /**
   * PostgreSQL: the clock of the shared rate budget (epoch ms), for the booked starts and the
   * answers it records and compares. @default the server's `clock_timestamp()`
   */
  readonly budgetClock?: (() => number) | undefined;
}

/** A location given on a command line: a `postgres://` URL, else an SQLite file path. */
export function parseStateLocation(text: string, cwd: string = process.cwd()): StateLocation {
  return isPostgresUrl(text)
    ? { backend: "postgres", url: text }
    : { backend: "sqlite", path: resolve(cwd, text) };
}

/** The location for people: the path, or the URL with its password replaced by `***`. */
export function describeStateLocation(location: StateLocation): string {
  return location.backend === "sqlite" ? location.path : redactUrl(location.url);
}

/**
 * Opens a state on its backend. SQLite: one process holds the file. PostgreSQL: any number of
 * processes share the database, and `claimJob` keeps each job on one of them.
 */
export function openState(
  location: StateLocation,
  options: OpenStateOptions = {},
): Promise<StateStore> {
  if (location.backend === "sqlite") {
    return openSqliteState({
      path: location.path,
      readOnly: options.readOnly,
      waitForLockMs: options.waitForLockMs,
      now: options.now,
    });
  }
  // The PostgreSQL backend (and `pg`) loads only for a postgres:// state: a CLI run on an SQLite
  // file starts without it (~0.1 s of CPU per process).
  return import("./postgres/pg-store.js").then(({ openPostgresState }) =>
    openPostgresState({
      url: location.url,
      readOnly: options.readOnly,
      now: options.now,
      lease: options.lease,
      budgetClock: options.budgetClock,
    }),
  );
}

/** What `keepStateConnections` keeps: closed when the process stops using the state. */
export interface StateConnections {
  close(): Promise<void>;
}

/**
 * Keeps the process's connections to a PostgreSQL state open between the stores it opens and
 * closes (a long-running process, `serve`: every poll and dashboard read opens a store). Stores
 * on one database share one pool per process either way; this keeps that pool, and the schema
 * found current, alive while no store is open, instead of ending it with the last store. The
 * pools end on `close` once their last store closes too. SQLite: nothing to keep.
 */
export function keepStateConnections(location: StateLocation): StateConnections {
  if (location.backend === "sqlite") return { close: () => Promise.resolve() };
  const { url } = location;
  const uses = import("./postgres/pg-pools.js").then(({ usePgPool }) => [
    usePgPool(url, false),
    usePgPool(url, true),
  ]);
  return {
    close: async () => {
      await Promise.all((await uses).map((u) => u.release()));
    },
  };
}
