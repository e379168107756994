import type { Pool } from "pg";
import {
  bookedWritesNeeded,
  planSharedSlot,
  type BookedWrite,
  type SharedBudget,
} from "../../core/shared-budget.js";
import { inTransaction } from "./pg-db.js";

/**
 * The advisory lock class of the rate slots ("rate"): with two int4 keys, a key space apart from
 * the migration lock's single bigint key. The second key is the hash of the token key.
 */
const RATE_LOCK_CLASS = 0x72617465;

/** The server's clock in epoch ms: one clock for every worker, whatever their hosts' say. */
const NOW_MS = "extract(epoch from clock_timestamp()) * 1000";

/**
 * The shared rate budget kept in a PostgreSQL state (table `rate_slots`): each worker books a
 * token's writes there in one transaction under an advisory lock per token key, reading the
 * latest booked writes and applying `planSharedSlot`. Rows older than the plan needs are pruned
 * as it goes. Errors (the server unreachable) reach the gate, which then sends nothing.
 */
export function pgBudget(pool: Pool, unavailable: (cause: unknown) => unknown): SharedBudget {
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw unavailable(error);
    }
  };
  return {
    reserve: (tokenKey, kind, plan) =>
      guard(() =>
        inTransaction(pool, async (db) => {
          await db.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [
            RATE_LOCK_CLASS,
            `${kind} ${tokenKey}`,
          ]);
          const need = bookedWritesNeeded(plan);
          const { rows } = await db.query<{
            id: number;
            start_ms: number;
            end_ms: number | null;
            now: number;
          }>(
            `SELECT id, start_ms, end_ms, ${NOW_MS} AS now FROM rate_slots
              WHERE token_key = $1 AND kind = $2 ORDER BY start_ms DESC, id DESC LIMIT $3`,
            [tokenKey, kind, need],
          );
          const now =
            rows[0]?.now ??
            (await db.query<{ now: number }>(`SELECT ${NOW_MS} AS now`)).rows[0]?.now ??
            Date.now();
          const booked: BookedWrite[] = rows
            .map((r) => ({ start: r.start_ms, end: r.end_ms }))
            .reverse();
          const decision = planSharedSlot(now, booked, plan);
          if ("retryAt" in decision) return { granted: false, retryAt: decision.retryAt, now };
          const inserted = await db.query<{ id: number }>(
            `INSERT INTO rate_slots (token_key, kind, start_ms) VALUES ($1, $2, $3) RETURNING id`,
            [tokenKey, kind, decision.at],
          );
          const oldest = rows.at(-1);
          if (rows.length >= need && oldest !== undefined) {
            // Only the last `need` writes decide the next slot: forget the older ones.
            await db.query(
              `DELETE FROM rate_slots WHERE token_key = $1 AND kind = $2 AND start_ms < $3`,
              [tokenKey, kind, oldest.start_ms],
            );
          }
          return { granted: true, id: String(inserted.rows[0]?.id), at: decision.at, now };
        }),
      ),
    answered: (id) =>
      guard(async () => {
        await pool.query(
          `UPDATE rate_slots SET end_ms = ${NOW_MS} WHERE id = $1 AND end_ms IS NULL`,
          [Number(id)],
        );
      }),
    cancel: (id) =>
      guard(async () => {
        await pool.query(`DELETE FROM rate_slots WHERE id = $1 AND end_ms IS NULL`, [Number(id)]);
      }),
  };
}
