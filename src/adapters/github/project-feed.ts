import type { BoardSpec } from "../../core/board.js";
import type { WorkItem } from "../../core/model.js";
import type { Change, ChangePage, Checkpoint } from "../../core/tracker.js";
import type { ProjectBoard } from "./project-board.js";
import {
  decodeBoardCheckpoint,
  digestOf,
  encodeBoardCheckpoint,
  type BoardIteration,
} from "./project-model.js";
import { issueOrUnreadable, type OnUnreadable } from "./unreadable.js";

/**
 * The change feed with a board: the issues' feed (free 304s when nothing changed), then the board
 * read in pages of 100. An issue whose board values differ from the checkpoint's digest is a
 * change. Before that, an iteration-field rewrite since the last run (every iteration id new,
 * values cleared) is repaired: the values are set back by title and dates, so it reads as no
 * change and nothing is written to tinyPM. An issue whose project item fails validation is handed
 * to `onUnreadable` (parked by the engine) and read again on the next run.
 */
export async function* boardFeed(args: {
  board: ProjectBoard;
  spec: BoardSpec;
  from: Checkpoint | undefined;
  issues: (from: Checkpoint | undefined) => AsyncIterable<ChangePage>;
  fetchItem: (issueNumber: number) => Promise<WorkItem | undefined>;
  view: (item: WorkItem) => WorkItem;
  /**
   * Where an issue whose payload or project item fails validation goes (left out, its board
   * digest not remembered: read again once it reads); else the feed fails.
   */
  onUnreadable?: OnUnreadable;
  signal?: AbortSignal | undefined;
}): AsyncGenerator<ChangePage> {
  const { board, from } = args;
  const { board: rawBoard, iterations: rawIterations, ...rest } = from ?? {};
  const prev = decodeBoardCheckpoint(rawBoard, rawIterations);
  await board.load(args.signal);
  if (prev.iterations.length > 0) {
    const before = new Map<number, BoardIteration>();
    for (const [number, e] of prev.items) {
      const it = e.iteration === undefined ? undefined : prev.iterations[e.iteration];
      if (it !== undefined) before.set(number, it);
    }
    await board.restore(before, prev.iterations, args.signal);
  }
  const stamp = (cp: Checkpoint): Checkpoint => ({
    ...cp,
    ...encodeBoardCheckpoint(board.items(), board.iterations()),
  });
  const emitted = new Set<string>();
  /** The change with its board values, or none when its project item cannot be read. */
  const viewed = async (c: Change): Promise<Change | undefined> => {
    if (c.kind !== "upsert") return c;
    const who = { kind: c.item.kind, id: c.item.id, title: c.item.title };
    const item = await issueOrUnreadable(who, args.onUnreadable, () => args.view(c.item));
    return item === undefined ? undefined : { ...c, item };
  };
  let last: ChangePage | undefined;
  for await (const page of args.issues(from === undefined ? undefined : rest)) {
    if (last !== undefined) yield { ...last, checkpoint: stamp(last.checkpoint) };
    for (const c of page.changes) if (c.kind === "upsert") emitted.add(c.item.id);
    const changes: Change[] = [];
    for (const c of page.changes) {
      const v = await viewed(c);
      if (v !== undefined) changes.push(v);
    }
    last = { ...page, changes };
  }
  const extra: Change[] = [];
  const more = async (number: number): Promise<void> => {
    const w = await args.fetchItem(number);
    if (w === undefined) return;
    const v = await viewed({ kind: "upsert", item: w });
    if (v !== undefined) extra.push(v);
  };
  if (from !== undefined)
    for (const item of board.items()) {
      if (emitted.has(String(item.number))) continue;
      if (prev.items.get(item.number)?.digest === digestOf(item.values)) continue;
      await more(item.number);
    }
  // An issue whose project item cannot be read is parked even when nothing else of it changed:
  // its values are unknown this run (left out of the checkpoint, read again on the next).
  for (const number of board.unreadable().keys())
    if (!emitted.has(String(number))) await more(number);
  const final = last ?? { changes: [], checkpoint: rest, complete: false };
  yield { ...final, changes: [...final.changes, ...extra], checkpoint: stamp(final.checkpoint) };
}
