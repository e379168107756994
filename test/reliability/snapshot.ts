import { exportProject } from "../../src/adapters/tinypm/archive.js";
import { normalizeArchiveIds } from "../../src/adapters/tinypm/archive-ids.js";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { ReferenceServer } from "../../src/reference-server/index.js";

/** Every item of a tracker (stories, then tasks). */
export async function listAll(tracker: Tracker): Promise<WorkItem[]> {
  const items: WorkItem[] = [];
  for (const kind of ["story", "task"] as const) {
    for await (const item of tracker.list({ kind })) items.push(item);
  }
  return items;
}

/** The origin key of a target item (its marker), or `unmarked:<title>`. */
export function originKey(item: WorkItem): string {
  const m = item.marker;
  return m === undefined ? `unmarked:${item.title}` : `${m.origin}:${m.originKind}:${m.originId}`;
}

export interface TargetView {
  /** Items per origin key; more than one under a key is a duplicate. */
  readonly counts: Readonly<Record<string, number>>;
  /** Each item's fields with remote ids, urls and times replaced by origin keys or dropped. */
  readonly items: Readonly<Record<string, unknown>>;
}

/** A comparable picture of the target: ids and times that differ between runs are left out. */
export async function targetView(tracker: Tracker): Promise<TargetView> {
  const items = await listAll(tracker);
  const keyOf = new Map(items.map((i) => [i.id, originKey(i)]));
  const counts: Record<string, number> = {};
  const view: Record<string, unknown> = {};
  for (const item of items) {
    const key = originKey(item);
    counts[key] = (counts[key] ?? 0) + 1;
    const { id: _id, url: _url, updatedAt: _u, parentId, comments, timeEntries, ...fields } = item;
    view[key] = {
      ...fields,
      description: stripHost(fields.description),
      iteration: fields.iteration?.name,
      parent: parentId === undefined ? undefined : keyOf.get(parentId),
      comments: comments.map((c) => ({ author: c.author, body: c.body })),
      timeEntries: timeEntries.map(({ id: _tid, ...t }) => t),
    };
  }
  return { counts, items: view };
}

/** Descriptions may carry a server URL (ports differ between worlds). */
function stripHost(text: string | undefined): string | undefined {
  return text?.replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://host");
}

/** The tinyPM project as an archive with ids normalised. */
export async function tinypmView(server: ReferenceServer): Promise<unknown> {
  return normalizeArchiveIds(
    await exportProject({ baseUrl: server.url, token: server.token, projectId: 1 }),
  );
}

/** Keys that occur more than once (duplicates). */
export function duplicates(view: TargetView): string[] {
  return Object.entries(view.counts)
    .filter(([, n]) => n > 1)
    .map(([k]) => k);
}
