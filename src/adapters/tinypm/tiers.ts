import { createHash } from "node:crypto";
import type { WorkItem } from "../../core/model.js";
import type { ScanSection, TieredScan } from "../../core/tracker.js";
import { mapOrdered } from "./ordered.js";
import { createReadRun, readItem, readStoryTrees } from "./reads.js";
import type { StorySummary, DocumentCache } from "./document-cache.js";

const OPEN_SECTION = "open";
const closedKey = (iterationId: string): string => `closed:${iterationId}`;

/** A digest of a story list: ids, names and positions, in listing order. */
function storyListSignature(stories: readonly StorySummary[]): string {
  const h = createHash("sha256");
  for (const s of stories) h.update(`${s.id}\t${s.position ?? ""}\t${s.name}\n`);
  return h.digest("hex").slice(0, 32);
}

/**
 * Which closed iteration holds each story: from the one listing on 2.6 (its elements name their
 * iteration), from one filtered listing per closed iteration on 2.0–2.5. `undefined` when the
 * server ignored the filter (a filtered listing returned the whole project): no tiers then.
 */
async function closedMembers(
  session: DocumentCache,
  all: readonly StorySummary[],
  closed: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Map<string, StorySummary[]> | undefined> {
  const members = new Map<string, StorySummary[]>(closed.map((id) => [id, []]));
  if ((await session.version()) === "2.6") {
    for (const s of all) {
      if (s.iterationId !== undefined) members.get(s.iterationId)?.push(s);
    }
    return members;
  }
  const byId = new Map(all.map((s) => [s.id, s]));
  const seen = new Set<string>();
  for await (const [id, listed] of mapOrdered(
    closed,
    session.concurrency,
    async (id) => [id, await session.listStories(signal, { iteration: id })] as const,
  )) {
    if (all.length > 0 && listed.length === all.length) return undefined;
    for (const s of listed) {
      const story = byId.get(s.id);
      if (story === undefined || seen.has(s.id)) continue;
      seen.add(s.id);
      members.get(id)?.push({ ...story, name: s.name, position: s.position });
    }
  }
  return members;
}

/** Starts a tiered read: the story listing (and on 2.0–2.5 one per closed iteration), no more. */
export async function startTieredScan(
  session: DocumentCache,
  signal?: AbortSignal,
): Promise<TieredScan> {
  const run = createReadRun();
  const [ctx, all] = await Promise.all([session.context(), session.listStories(signal)]);
  const closedIterations = ctx.iterations.filter((i) => i.state === "closed");
  const members = await closedMembers(
    session,
    all,
    closedIterations.map((i) => i.id),
    signal,
  );
  const sectionOf = new Map<string, string>();
  const sections: ScanSection[] = [];
  for (const it of members === undefined ? [] : closedIterations) {
    const stories = members?.get(it.id) ?? [];
    for (const s of stories) sectionOf.set(s.id, closedKey(it.id));
    sections.push({
      key: closedKey(it.id),
      name: it.name,
      closed: true,
      signature: storyListSignature(stories),
      stories: stories.length,
    });
  }
  const open = all.filter((s) => !sectionOf.has(s.id));
  sections.unshift({
    key: OPEN_SECTION,
    name: "backlog, current and future iterations",
    closed: false,
    signature: storyListSignature(open),
    stories: open.length,
  });
  return {
    sections,
    async *read(keys, opts) {
      const wanted = new Set(keys);
      const stories = all.filter((s) => wanted.has(sectionOf.get(s.id) ?? OPEN_SECTION));
      for await (const tree of readStoryTrees(session, run, stories, {
        signal: opts?.signal,
        onUnreadable: opts?.onUnreadable,
      })) {
        yield tree.story;
        yield* tree.tasks;
      }
    },
    async readItems(refs, opts) {
      const out: WorkItem[] = [];
      for await (const item of mapOrdered(refs, session.concurrency, (ref) =>
        readItem(session, ref, opts?.signal, opts?.onUnreadable),
      )) {
        if (item) out.push(item);
      }
      return out;
    },
    listings: () => ({ story: run.lists.verdict("story"), task: run.lists.verdict("task") }),
  };
}
