import pg from "pg";
import type { Pool } from "pg";
import {
  bookedWritesNeeded,
  planSharedSlots,
  type BookedWrite,
  type BudgetBlock,
  type SharedBudget,
} from "../../core/shared-budget.js";
import { holdClient } from "./pg-db.js";

/**
 * The advisory lock class of the rate slots ("rate"): with two int4 keys, a key space apart from
 * the migration lock's single bigint key. The second key is the hash of the token key.
 */
const RATE_LOCK_CLASS = 0x72617465;

/** The server's clock in epoch ms: one clock for every worker, whatever their hosts' say. */
const SERVER_NOW_MS = "extract(epoch from clock_timestamp()) * 1000";

/**
 * How long an answer waits to be recorded with others (or with the next booking): the other
 * workers ask again every 100 ms while the write that decides is in flight, so an answer
 * recorded up to that much later costs them about one more ask.
 */
export const ANSWER_BATCH_MS = 100;

/** The shared budget of a PostgreSQL state, and what its store's `close` waits for. */
export interface PgBudget extends SharedBudget {
  /** Records the answers waiting and waits for every record and give-back under way. */
  drain(): Promise<void>;
}

/** `1,2,3` for `IN (…)`: ids are the table's bigint keys, checked to be digits. */
function idList(ids: readonly string[]): string {
  for (const id of ids) {
    if (!/^\d+$/.test(id)) throw new TypeError(`Not a rate slot id: ${id}`);
  }
  return ids.join(",");
}

/** A finite number as an SQL literal (booked starts are plain epoch ms). */
function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`Not a finite booked start: ${value}`);
  return String(value);
}

/**
 * The shared rate budget kept in a PostgreSQL state (table `rate_slots`): each worker books a
 * token's writes there in one transaction under an advisory lock per token key, reading the
 * latest booked writes and applying `planSharedSlots` (a block of up to `max` slots). Rows older
 * than the plan needs are pruned as it goes. A booking is three round trips whatever its size
 * (begin + what waits to be written + lock; read; insert + prune + commit). Answers are recorded
 * in batches (with the next booking, or `ANSWER_BATCH_MS` after the first one waiting), slots
 * given back in the same tick together (or with the next booking), one statement each time. Errors (the server unreachable) reach the gate, which then sends nothing;
 * an answer that could not be recorded counts at its bound (safe).
 */
export function pgBudget(
  pool: Pool,
  unavailable: (cause: unknown) => unknown,
  /**
   * The budget's one clock (epoch ms) for the booked starts, the answers and every comparison
   * of them. @default the server's (`clock_timestamp()`), as every worker must share it
   */
  clock?: () => number,
): PgBudget {
  /** Now on the budget's clock, as SQL. */
  const nowSql = (): string => (clock === undefined ? SERVER_NOW_MS : numberLiteral(clock()));
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw unavailable(error);
    }
  };
  /** Answers arrived and slots given back, not yet written, and the calls waiting for it. */
  let answers: string[] = [];
  let returns: string[] = [];
  let waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Immediate | undefined;
  const underWay = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    underWay.add(p);
    void p.then(
      () => underWay.delete(p),
      () => underWay.delete(p),
    );
    return p;
  };
  /** Takes what waits to be written: it goes with the caller's statement. */
  const takePending = (): {
    sql: string;
    settle: (error?: unknown) => void;
  } => {
    if (timer !== undefined) clearTimeout(timer);
    if (soon !== undefined) clearImmediate(soon);
    timer = undefined;
    soon = undefined;
    const answered = answers;
    const given = returns;
    const calls = waiters;
    answers = [];
    returns = [];
    waiters = [];
    const settle = (error?: unknown): void => {
      for (const w of calls) {
        if (error === undefined) w.resolve();
        else w.reject(error);
      }
    };
    const sql = [
      answered.length === 0
        ? ""
        : `UPDATE rate_slots SET end_ms = ${nowSql()} WHERE id IN (${idList(answered)}) AND end_ms IS NULL;`,
      given.length === 0
        ? ""
        : `DELETE FROM rate_slots WHERE id IN (${idList(given)}) AND end_ms IS NULL;`,
    ].join(" ");
    return { sql: sql.trim(), settle };
  };
  const flush = (): Promise<void> => {
    const taken = takePending();
    if (taken.sql === "") {
      taken.settle();
      return Promise.resolve();
    }
    return track(
      guard(async () => {
        await pool.query(taken.sql);
      }).then(
        () => {
          taken.settle();
        },
        (error: unknown) => {
          taken.settle(error);
          throw error;
        },
      ),
    );
  };
  /** Queues ids to write: answers on a short timer, give-backs at the end of this tick. */
  const enqueue = (ids: readonly string[], list: string[], now: boolean): Promise<void> => {
    for (const id of ids) {
      if (!/^\d+$/.test(id)) return Promise.reject(new TypeError(`Not a rate slot id: ${id}`));
    }
    const written = new Promise<void>((resolve, reject) => {
      waiters.push({ resolve, reject });
    });
    list.push(...ids);
    const run = (): void => {
      void flush().catch(() => undefined);
    };
    if (now) soon ??= setImmediate(run);
    else timer ??= setTimeout(run, ANSWER_BATCH_MS);
    timer?.unref();
    return written;
  };

  const reserveBlock: SharedBudget["reserveBlock"] = (tokenKey, kind, plan, max) => {
    const taken = takePending();
    const booking = guard(async (): Promise<BudgetBlock> => {
      const { client, release } = await holdClient(pool);
      let broken = false;
      try {
        const key = pg.escapeLiteral(`${kind} ${tokenKey}`);
        // One round trip: the transaction, the answers waiting, the token's lock, then the
        // store's clock (read once the lock is held).
        const opened = (await client.query(
          `BEGIN; ${taken.sql} SELECT pg_advisory_xact_lock(${RATE_LOCK_CLASS}, hashtext(${key}));
           SELECT (${nowSql()})::float8 AS now`,
        )) as unknown as pg.QueryResult<{ now: number }>[];
        const now = opened.at(-1)?.rows[0]?.now ?? Date.now();
        try {
          const need = bookedWritesNeeded(plan);
          const { rows } = await client.query<{ start_ms: number; end_ms: number | null }>({
            name: "rate-slots-latest",
            text: `SELECT start_ms, end_ms FROM rate_slots
                    WHERE token_key = $1 AND kind = $2 ORDER BY start_ms DESC, id DESC LIMIT $3`,
            values: [tokenKey, kind, need],
          });
          const booked: BookedWrite[] = rows
            .map((r) => ({ start: r.start_ms, end: r.end_ms }))
            .reverse();
          const decision = planSharedSlots(now, booked, plan, max);
          if ("retryAt" in decision) {
            await client.query("COMMIT");
            return { granted: false, retryAt: decision.retryAt, now };
          }
          const token = pg.escapeLiteral(tokenKey);
          const kindLit = pg.escapeLiteral(kind);
          const values = decision.at
            .map((at) => `(${token}, ${kindLit}, ${numberLiteral(at)})`)
            .join(", ");
          const oldest = rows.at(-1);
          // Only the last `need` writes decide the next slot: forget the older ones.
          const prune =
            rows.length >= need && oldest !== undefined
              ? `DELETE FROM rate_slots WHERE token_key = ${token} AND kind = ${kindLit}
                   AND start_ms < ${numberLiteral(oldest.start_ms)};`
              : "";
          const results = (await client.query(
            `INSERT INTO rate_slots (token_key, kind, start_ms) VALUES ${values} RETURNING id, start_ms;
             ${prune} COMMIT`,
          )) as unknown as pg.QueryResult<{ id: string; start_ms: number }>[];
          const inserted = results[0]?.rows ?? [];
          const slots = inserted
            .map((r) => ({ id: r.id, at: r.start_ms }))
            .sort((a, b) => a.at - b.at || Number(a.id) - Number(b.id));
          return { granted: true, slots, now };
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {
            broken = true;
          });
          throw error;
        }
      } catch (error) {
        broken = true;
        throw error;
      } finally {
        release(broken);
      }
    });
    void booking.then(
      () => {
        taken.settle();
      },
      (error: unknown) => {
        taken.settle(error);
      },
    );
    return track(booking);
  };

  return {
    reserveBlock,
    reserve: async (tokenKey, kind, plan) => {
      const block = await reserveBlock(tokenKey, kind, plan, 1);
      if (!block.granted) return block;
      const slot = block.slots[0];
      if (slot === undefined) throw new Error("A granted block has at least one slot.");
      return { granted: true, id: slot.id, at: slot.at, now: block.now };
    },
    answered: (id) => enqueue([id], answers, false),
    cancel: (id) => enqueue([id], returns, true),
    giveBack: (ids) => (ids.length === 0 ? Promise.resolve() : enqueue(ids, returns, true)),
    drain: async () => {
      await flush().catch(() => undefined);
      await Promise.allSettled([...underWay]);
    },
  };
}
