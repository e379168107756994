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

/**
 * The change feed with a board: the issues' feed (free 304s when nothing changed), then the board
 * read in pages of 100. An issue whose board values differ from the checkpoint's digest is a
 * change. Before that, an iteration-field rewrite since the last run (every iteration id new,
 * values cleared) is repaired: the values are set back by title and dates, so it reads as no
 * change and nothing is written to tinyPM.
 */
export async function* boardFeed(args: {
  board: ProjectBoard;
  spec: BoardSpec;
  from: Checkpoint | undefined;
  issues: (from: Checkpoint | undefined) => AsyncIterable<ChangePage>;
  fetchItem: (issueNumber: number) => Promise<WorkItem | undefined>;
  view: (item: WorkItem) => WorkItem;
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
  let last: ChangePage | undefined;
  for await (const page of args.issues(from === undefined ? undefined : rest)) {
    if (last !== undefined) yield { ...last, checkpoint: stamp(last.checkpoint) };
    for (const c of page.changes) if (c.kind === "upsert") emitted.add(c.item.id);
    last = {
      ...page,
      changes: page.changes.map((c) =>
        c.kind === "upsert" ? { ...c, item: args.view(c.item) } : c,
      ),
    };
  }
  const extra: Change[] = [];
  if (from !== undefined)
    for (const item of board.items()) {
      if (emitted.has(String(item.number))) continue;
      if (prev.items.get(item.number)?.digest === digestOf(item.values)) continue;
      const w = await args.fetchItem(item.number);
      if (w !== undefined) extra.push({ kind: "upsert", item: args.view(w) });
    }
  const final = last ?? { changes: [], checkpoint: rest, complete: false };
  yield { ...final, changes: [...final.changes, ...extra], checkpoint: stamp(final.checkpoint) };
}
