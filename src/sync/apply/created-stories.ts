import type { EngineContext } from "../context.js";

// The stories each run created, per side created on: source id → the new item's id. A task whose
// story the same run created needs no look at the state for its parent (the run holds its job:
// the link it just stored cannot change meanwhile). Kept in the run's memory (run-memory.ts).

/** Notes that the run created story `id` on `side` from story `sourceId` of the other side. */
export function rememberStory(
  ctx: EngineContext,
  side: "tinypm" | "target",
  sourceId: string,
  id: string,
): void {
  ctx.memory.storiesCreated.set(`${side}:${sourceId}`, id);
}

/** The id on `side` of the story this run created there from `sourceId`, if it did. */
export function storyCreatedInRun(
  ctx: EngineContext,
  side: "tinypm" | "target",
  sourceId: string,
): string | undefined {
  return ctx.memory.storiesCreated.get(`${side}:${sourceId}`);
}
