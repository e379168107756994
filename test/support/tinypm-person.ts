import type { ItemRef } from "../../src/core/model.js";
import type { ReferenceServer } from "../../src/reference-server/index.js";

/** A person's save in tinyPM: one field of the story or task, as one atomic write. */
export function personSets(
  server: ReferenceServer,
  ref: ItemRef,
  field: "name" | "description",
  value: string,
): void {
  const id = Number(ref.id);
  const store = server.store;
  if (ref.kind === "story") {
    const story = store.story(id);
    if (story === undefined) throw new Error(`no story ${ref.id}`);
    const { id: _, ...rest } = story;
    store.replaceStory(id, { ...rest, [field]: value });
  } else {
    const task = store.task(id);
    if (task === undefined) throw new Error(`no task ${ref.id}`);
    const { id: _, ...rest } = task;
    store.replaceTask(id, { ...rest, [field]: value });
  }
}

/** What tinyPM holds now: name and description, straight from the store. */
export function held(
  server: ReferenceServer,
  ref: ItemRef,
): { name: string; description?: string } {
  const record =
    ref.kind === "story" ? server.store.story(Number(ref.id)) : server.store.task(Number(ref.id));
  if (record === undefined) throw new Error(`no ${ref.kind} ${ref.id}`);
  return {
    name: record.name,
    ...(record.description !== undefined && { description: record.description }),
  };
}
