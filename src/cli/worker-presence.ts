import type { LoadedConfig } from "../config/load.js";
import type { Logger } from "../log/logger.js";
import { HEARTBEAT_MS } from "../state/lease.js";
import type { StateStore } from "../state/store.js";
import { openState } from "./session.js";

/** Keeps a `serve` process listed as a worker of its state while it lives (see below). */
export interface WorkerPresence {
  /**
   * Settles once the first attempt to join has ended, joined or not (never rejects): on a new
   * database the join has then created the schema, so reads made after it find a state.
   */
  readonly firstAttempt: Promise<void>;
  /** Leaves the state (the process stops). */
  close(): Promise<void>;
}

/**
 * On a PostgreSQL state, `serve` joins as a worker for its whole life, not only while a run holds
 * a job: every worker's `/api/workers`, dashboard and `status` then list it idle too, with its
 * heartbeat. While the database cannot be reached it tries again every heartbeat. On SQLite it
 * does nothing: the file has one holder at a time, and `serve` lists itself.
 */
export function keepWorkerPresence(loaded: LoadedConfig, logger: Logger): WorkerPresence {
  if (loaded.state.backend !== "postgres") {
    return { firstAttempt: Promise.resolve(), close: () => Promise.resolve() };
  }
  let state: StateStore | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const join = async (): Promise<void> => {
    try {
      const opened = await openState(loaded, false);
      if (closed) await opened.close();
      else state = opened;
    } catch (error) {
      if (closed) return;
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        "could not join the state as a worker; trying again",
      );
      timer = setTimeout(() => void join(), HEARTBEAT_MS);
      timer.unref();
    }
  };
  const joining = join();
  return {
    firstAttempt: joining,
    async close(): Promise<void> {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await joining;
      await state?.close();
      state = undefined;
    },
  };
}
