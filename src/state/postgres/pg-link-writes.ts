import { InternalError } from "../../core/errors.js";
import type { LinkIdentity } from "../identity-table.js";
import { bindLink, checkIntentMatches, toIntent, type IntentRow } from "../link-table.js";
import type { LinkRecord } from "../records.js";
import { alreadyLinkedError } from "../state-errors.js";
import type { Db } from "./pg-db.js";

/*
 * The link writes of a create, each one statement (one round trip, atomic on its own): the
 * checks SQLite makes in its transaction are folded into the statement, so that a migration
 * does not pay a BEGIN, a SELECT … FOR UPDATE per check and a COMMIT for every item. A check
 * that fails writes nothing; the slow path then reads why and throws the same error as SQLite.
 * Parameters $1–$13 are the link's columns, in `linkValues` order.
 */

/** Another item's link holding the link's target id ($5), if any. */
const CLASH = `SELECT tinypm_id FROM links
  WHERE job = $1::text AND kind = $2::text AND target_id = $5::text AND tinypm_id <> $3::text`;

/** The link's upsert, run when `ok` holds (a CTE of the statement). */
const UPSERT_WHEN_OK = `INSERT INTO links (job, kind, tinypm_id, target_system, target_id, origin,
    parent_tinypm_id, base_tinypm, base_target, tinypm_hash, target_hash, updated_at,
    pending_writes)
  SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text,
    $9::text, $10::text, $11::text, $12::text, $13::text FROM ok WHERE ok.ok
  ON CONFLICT (job, kind, tinypm_id) DO UPDATE SET target_system = excluded.target_system,
    target_id = excluded.target_id, origin = excluded.origin,
    parent_tinypm_id = excluded.parent_tinypm_id, base_tinypm = excluded.base_tinypm,
    base_target = excluded.base_target, tinypm_hash = excluded.tinypm_hash,
    target_hash = excluded.target_hash, updated_at = excluded.updated_at,
    pending_writes = excluded.pending_writes`;

const PUT_LINK = `WITH ok AS (SELECT NOT EXISTS (${CLASH}) AS ok),
  up AS (${UPSERT_WHEN_OK})
  SELECT ok FROM ok`;

/**
 * Confirms intent $14: when the intent (if still there) names this link's item and the target id
 * is free, upserts the link, deletes the intent and, when $15 is not null, upserts the identity
 * ($15 marker, $16 meta) — all in this one statement, so all or nothing.
 */
const CONFIRM_INTENT = `WITH intent AS (
    SELECT job, kind, origin_system, origin_id, target_system FROM intents
    WHERE id = $14::bigint FOR UPDATE),
  ok AS (SELECT NOT EXISTS (${CLASH}) AND NOT EXISTS (SELECT 1 FROM intent i WHERE NOT (
      i.job = $1::text AND i.kind = $2::text
      AND i.target_system = CASE WHEN i.origin_system = 'tinypm' THEN $4::text ELSE 'tinypm' END
      AND i.origin_id = CASE WHEN i.origin_system = 'tinypm' THEN $3::text ELSE $5::text END
    )) AS ok),
  up AS (${UPSERT_WHEN_OK}),
  gone AS (DELETE FROM intents WHERE id = $14::bigint AND (SELECT ok FROM ok)),
  identity AS (INSERT INTO link_identity (job, kind, tinypm_id, marker, meta)
    SELECT $1::text, $2::text, $3::text, $15::text, $16::text FROM ok
    WHERE ok.ok AND $15::text IS NOT NULL
    ON CONFLICT (job, kind, tinypm_id) DO UPDATE SET marker = excluded.marker,
      meta = excluded.meta)
  SELECT ok FROM ok`;

function linkValues(link: LinkRecord): (string | null)[] {
  const b = bindLink(link);
  return [
    ...[b.job, b.kind, b.tinypmId, b.targetSystem, b.targetId, b.origin, b.parent],
    ...[b.baseTinypm, b.baseTarget, b.tinypmHash, b.targetHash, b.updatedAt, b.pendingWrites],
  ].map((v) => v ?? null);
}

/** Why a link write's checks failed: the error SQLite throws for it, if it still holds. */
async function refusal(db: Db, link: LinkRecord, intentId?: number): Promise<Error | undefined> {
  if (intentId !== undefined) {
    const { rows } = await db.query<IntentRow>("SELECT * FROM intents WHERE id = $1", [intentId]);
    try {
      if (rows[0] !== undefined) checkIntentMatches(toIntent(rows[0]), link);
    } catch (error) {
      return error as Error;
    }
  }
  const { rows } = await db.query<{ tinypm_id: string }>(
    "SELECT tinypm_id FROM links WHERE job = $1 AND kind = $2 AND target_id = $3 AND tinypm_id <> $4",
    [link.job, link.kind, link.targetId, link.tinypmId],
  );
  return rows[0] === undefined ? undefined : alreadyLinkedError(link, rows[0].tinypm_id);
}

/** Runs a checked write; when its checks refused it, throws why (retrying a check that raced). */
async function checked(
  db: Db,
  link: LinkRecord,
  intentId: number | undefined,
  write: () => Promise<boolean>,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await write()) return;
    const why = await refusal(db, link, intentId);
    if (why !== undefined) throw why;
  }
  throw new InternalError(
    `The link of ${link.kind} ${link.tinypmId} in job ${link.job} could not be written: ` +
      "its checks kept failing and then passing (another process writing the same job?).",
    { hint: "Run the job again; a job runs on one process at a time." },
  );
}

/** Inserts or replaces a link, refused when its target id is another item's: one statement. */
export async function putLinkChecked(db: Db, link: LinkRecord): Promise<void> {
  await checked(db, link, undefined, async () => {
    const { rows } = await db.query<{ ok: boolean }>(PUT_LINK, linkValues(link), "tps_put_link");
    return rows[0]?.ok === true;
  });
}

/**
 * Stores the link of a created item, ends its intent and (given) stores the identity the create
 * wrote into the target item: one statement, so a crash leaves all or none of it.
 */
export async function confirmIntentAtOnce(
  db: Db,
  intentId: number,
  link: LinkRecord,
  identity: LinkIdentity | undefined,
): Promise<void> {
  await checked(db, link, intentId, async () => {
    const { rows } = await db.query<{ ok: boolean }>(
      CONFIRM_INTENT,
      [
        ...linkValues(link),
        intentId,
        identity === undefined ? null : JSON.stringify(identity.marker),
        identity === undefined ? null : JSON.stringify(identity.meta),
      ],
      "tps_confirm_intent",
    );
    return rows[0]?.ok === true;
  });
}
