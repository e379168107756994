/**
 * Table-level access to a state, for copying it between backends (`state migrate`). Both
 * backends store the same columns with the same values (ISO text times, JSON as text), so a row
 * read from one is written unchanged into the other and hashes the same on both.
 */

/** A row: column name → value. */
export type Row = Readonly<Record<string, string | number | null>>;

/** A table copied between backends: its columns and the key it is read in order of. */
export interface CopiedTable {
  readonly name: string;
  readonly columns: readonly string[];
  /** Read order (and keyset pagination), text compared byte by byte on both backends. */
  readonly key: readonly string[];
  /** Key columns holding integers (compared as numbers). */
  readonly numericKey?: boolean;
}

/**
 * What a state is made of. Workers and leases are not: they describe live processes of one
 * database, not the data.
 */
export const COPIED_TABLES: readonly CopiedTable[] = [
  {
    name: "links",
    columns: [
      ...["job", "kind", "tinypm_id", "target_system", "target_id", "origin", "parent_tinypm_id"],
      ...["base_tinypm", "base_target", "tinypm_hash", "target_hash", "updated_at"],
      "pending_writes",
    ],
    key: ["job", "kind", "tinypm_id"],
  },
  {
    name: "link_identity",
    columns: ["job", "kind", "tinypm_id", "marker", "meta"],
    key: ["job", "kind", "tinypm_id"],
  },
  {
    name: "checkpoints",
    columns: ["job", "system", "data", "updated_at"],
    key: ["job", "system"],
  },
  {
    name: "intents",
    columns: [
      ...["id", "job", "kind", "origin_system", "origin_id", "target_system", "payload_hash"],
      ...["created_at", "anchor"],
    ],
    key: ["id"],
    numericKey: true,
  },
  {
    name: "runs",
    columns: [
      ...["id", "job", "mode", "pid", "started_at", "finished_at", "outcome", "counts"],
      ...["api_calls", "host", "worker_id"],
    ],
    key: ["id"],
  },
  {
    name: "failures",
    columns: [
      ...["id", "run_id", "job", "kind", "tinypm_id", "target_id", "side", "code", "message"],
      ...["attempts", "first_seen_at", "last_seen_at"],
    ],
    key: ["id"],
    numericKey: true,
  },
  {
    name: "conflicts",
    columns: [
      ...["id", "job", "kind", "tinypm_id", "target_id", "field", "base_value", "tinypm_value"],
      ...["target_value", "status", "resolution", "created_at", "updated_at", "resolved_at"],
      "applied_at",
    ],
    key: ["id"],
    numericKey: true,
  },
  {
    name: "import_claims",
    columns: ["target_system", "location", "target_id", "job", "kind", "claimed_at"],
    key: ["target_system", "location", "target_id"],
  },
  {
    name: "run_requests",
    columns: ["job", "version", "deliveries", "triggers", "first_at", "last_at"],
    key: ["job"],
  },
];

/** Rows are read and written in pages of this many. */
export const TABLE_PAGE = 500;

/** Reads the tables of one consistent view of a state. */
export type ReadTable = (table: CopiedTable) => AsyncIterable<Row>;

/** Writes into a state inside one transaction. */
export interface TableWriter {
  /** Deletes every row of the table. */
  clear(table: CopiedTable): Promise<void>;
  /** Inserts rows as they are (ids included). */
  insert(table: CopiedTable, rows: readonly Row[]): Promise<void>;
}

/** Table-level access to a state (see `state migrate`). */
export interface StateTables {
  /** Rows of a table now (outside any snapshot). */
  count(table: CopiedTable): Promise<number>;
  /** Runs `fn` over one consistent view of every table (a read transaction). */
  snapshot<T>(fn: (read: ReadTable) => Promise<T>): Promise<T>;
  /** Runs `fn` in one write transaction: all of it lands, or none. */
  load(fn: (write: TableWriter) => Promise<void>): Promise<void>;
}
