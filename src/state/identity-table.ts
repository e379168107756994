import type { Database } from "better-sqlite3";
import type { ItemKind, JsonValue, Marker } from "../core/model.js";
import { parseJson } from "./records.js";

/**
 * What a target item's hidden block last held, kept beside its link: the marker and the metadata
 * (values the target cannot hold natively). The state is a cache of identities, never their only
 * copy — but a block a person removed is never data either: this copy stands in for it.
 */
export interface LinkIdentity {
  readonly marker: Marker;
  readonly meta: Readonly<Record<string, JsonValue>>;
}

interface IdentityRow {
  marker: string;
  meta: string;
}

/** The identity operations of the state store (a no-op reader on a file not yet migrated). */
export function createIdentityTable(db: Database) {
  const exists =
    db
      .prepare<[], { n: number }>(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'link_identity'",
      )
      .get()?.n === 1;
  if (!exists) {
    return {
      getLinkIdentity: (_job: string, _kind: ItemKind, _tinypmId: string) =>
        undefined as LinkIdentity | undefined,
      putLinkIdentity: (_job: string, _kind: ItemKind, _tinypmId: string, _id: LinkIdentity) => {
        // A read-only store of an older file: nothing to write (writes throw elsewhere).
      },
    };
  }
  const get = db.prepare<[string, string, string], IdentityRow>(
    "SELECT marker, meta FROM link_identity WHERE job = ? AND kind = ? AND tinypm_id = ?",
  );
  const put = db.prepare(
    `INSERT INTO link_identity (job, kind, tinypm_id, marker, meta) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (job, kind, tinypm_id) DO UPDATE SET marker = excluded.marker, meta = excluded.meta`,
  );
  return {
    getLinkIdentity(job: string, kind: ItemKind, tinypmId: string): LinkIdentity | undefined {
      const row = get.get(job, kind, tinypmId);
      if (row === undefined) return undefined;
      const marker = parseJson<Marker | null>(row.marker);
      const meta = parseJson<JsonValue>(row.meta);
      if (marker === null || typeof marker !== "object") return undefined;
      return {
        marker,
        meta:
          meta !== null && typeof meta === "object" && !Array.isArray(meta)
            ? (meta as Record<string, JsonValue>)
            : {},
      };
    },
    putLinkIdentity(job: string, kind: ItemKind, tinypmId: string, id: LinkIdentity): void {
      put.run(job, kind, tinypmId, JSON.stringify(id.marker), JSON.stringify(id.meta));
    },
  };
}
