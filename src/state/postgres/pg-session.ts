import type { Client } from "pg";

/**
 * The connection whose life tells the other workers that this process is alive: each worker
 * (membership) holding a job takes a session-level advisory lock on a key of its own on it, and
 * PostgreSQL releases the lock the moment the connection closes — the process was killed, its
 * machine died, an administrator ended the session. A session lock lives on ONE connection, so
 * this is a client of its own, never a connection of the pool (which hands out any of several).
 * One per process and database, opened when a first worker holds a job, ended with the pool.
 */
export interface LivenessSession {
  /**
   * Holds `key` (a bigint, as text) on the session, connecting it first if need be; `onLost` is
   * called once if the session ends while the key is held. Resolves once the lock is held.
   */
  hold(key: string, onLost: (why: string) => void): Promise<void>;
  /** Gives `key` back (a no-op when the session ended meanwhile). */
  unhold(key: string): Promise<void>;
  /** Ends the connection (the pool it goes with is ended). */
  end(): Promise<void>;
}

/** The name the connection shows in `pg_stat_activity` (an administrator sees what it is). */
export const LIVENESS_APPLICATION = "tinypm-sync liveness";

export function createLivenessSession(connect: () => Client): LivenessSession {
  let client: Promise<Client> | undefined;
  let ending = false;
  const holders = new Map<string, (why: string) => void>();

  const lost = (why: string): void => {
    client = undefined;
    const notify = [...holders.values()];
    holders.clear();
    for (const onLost of notify) onLost(why);
  };

  const open = (): Promise<Client> => {
    if (client !== undefined) return client;
    const c = connect();
    let gone = false;
    const drop = (why: string): void => {
      if (gone) return;
      gone = true;
      if (client === opened) lost(why);
    };
    // A connection the server ends (terminated, restarted) or that breaks must not crash the
    // process with an unhandled `error` event: the holders hear of it instead.
    c.on("error", (error: Error) => {
      drop(`its database session broke (${error.message})`);
    });
    c.on("end", () => {
      if (!ending) drop("its database session ended");
    });
    const opened: Promise<Client> = c.connect().then(
      () => c,
      (error: unknown) => {
        gone = true;
        if (client === opened) client = undefined;
        throw error;
      },
    );
    client = opened;
    return opened;
  };

  return {
    async hold(key, onLost) {
      const c = await open();
      // Waits only while a claimer's transaction probes this very key (a moment).
      await c.query("SELECT pg_advisory_lock($1::bigint)", [key]);
      holders.set(key, onLost);
    },
    async unhold(key) {
      if (!holders.delete(key)) return;
      const c = client;
      if (c === undefined) return;
      await (await c).query("SELECT pg_advisory_unlock($1::bigint)", [key]).catch(() => undefined);
    },
    async end() {
      ending = true;
      holders.clear();
      const c = client;
      client = undefined;
      if (c === undefined) return;
      await c.then((x) => x.end()).catch(() => undefined);
    },
  };
}
