/**
 * tinyPM keeps no change timestamps, so its feed is a full scan: every page carries the items
 * with their content hashes' inputs, and the last page says `complete: true` so the engine may
 * infer deletions (mark and sweep). The checkpoint records when and what was scanned.
 */
import { createHash, hash } from "node:crypto";
import type { WorkItem } from "../../core/model.js";
import type { ChangePage, Checkpoint } from "../../core/tracker.js";
import { parseCheckpoint } from "./checkpoint.js";
import { scanProject } from "./reads.js";
import type { DocumentCache } from "./document-cache.js";

/** A stable hash of an item's content (ids, fields, comments and time entries; key order fixed). */
export function contentHash(item: WorkItem): string {
  return hash("sha256", stableJson(item), "hex");
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

interface FeedOptions {
  /** Stories per page (each with its tasks). @default 100 */
  readonly storiesPerPage?: number;
  readonly now?: () => Date;
  readonly signal?: AbortSignal | undefined;
}

/** The full-scan change feed. `from` is validated, but every run scans everything. */
export async function* fullScanFeed(
  session: DocumentCache,
  from: Checkpoint | undefined,
  opts: FeedOptions = {},
): AsyncGenerator<ChangePage> {
  parseCheckpoint(from);
  const perPage = opts.storiesPerPage ?? 100;
  const scannedAt = (opts.now ?? (() => new Date()))().toISOString();
  const total = createHash("sha256");
  let count = 0;
  let page: WorkItem[] = [];
  let stories = 0;
  const flush = (complete: boolean): ChangePage => {
    const changes = page.map((item) => ({ kind: "upsert" as const, item }));
    page = [];
    stories = 0;
    const checkpoint: Checkpoint = complete
      ? { scannedAt, count, hash: total.copy().digest("hex") }
      : { scannedAt, count };
    return { changes, checkpoint, complete };
  };
  for await (const tree of scanProject(session, { signal: opts.signal })) {
    for (const item of [tree.story, ...tree.tasks]) {
      total.update(`${item.kind}:${item.id}:${contentHash(item)}\n`);
      page.push(item);
      count++;
    }
    if (++stories >= perPage) yield flush(false);
  }
  yield flush(true);
}
