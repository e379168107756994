import type { ItemRef, WorkItem } from "../../core/model.js";
import { mapOrdered } from "./limiter.js";
import { storyToItem, taskToItem } from "./map.js";
import type { TinypmSession } from "./session.js";

/** A story with its tasks, each carrying comments and time entries. */
export interface StoryTree {
  readonly story: WorkItem;
  readonly tasks: readonly WorkItem[];
}

export async function readStory(
  session: TinypmSession,
  id: string,
  signal?: AbortSignal,
): Promise<WorkItem | undefined> {
  const doc = await session.getStory(id, signal);
  if (!doc) return undefined;
  const [ctx, comments] = await Promise.all([
    session.context(),
    session.comments("story", id, doc.data.comments, signal),
  ]);
  return storyToItem(doc.data, ctx, comments);
}

export async function readTask(
  session: TinypmSession,
  id: string,
  storyId: string | undefined,
  signal?: AbortSignal,
): Promise<WorkItem | undefined> {
  const doc = await session.getTask(id, signal);
  if (!doc) return undefined;
  const [ctx, comments, timeEntries, parent] = await Promise.all([
    session.context(),
    session.comments("task", id, doc.data.comments, signal),
    session.timeEntries(id, signal),
    storyId ?? session.parentOf(id, signal),
  ]);
  return taskToItem(doc.data, ctx, { storyId: parent, comments, timeEntries });
}

export async function readItem(
  session: TinypmSession,
  ref: ItemRef,
  signal?: AbortSignal,
): Promise<WorkItem | undefined> {
  return ref.kind === "story"
    ? readStory(session, ref.id, signal)
    : readTask(session, ref.id, undefined, signal);
}

/** Reads the tasks of a story, concurrently (the session's limiter bounds the HTTP calls). */
export async function readTasksOf(
  session: TinypmSession,
  storyId: string,
  signal?: AbortSignal,
): Promise<WorkItem[]> {
  const ids = await session.listTaskIds(storyId, signal);
  const tasks = await Promise.all(ids.map((id) => readTask(session, id, storyId, signal)));
  return tasks.filter((t): t is WorkItem => t !== undefined);
}

/** A story and its tasks; `undefined` when the story vanished during the scan. */
export async function readStoryTree(
  session: TinypmSession,
  storyId: string,
  signal?: AbortSignal,
): Promise<StoryTree | undefined> {
  const [story, tasks] = await Promise.all([
    readStory(session, storyId, signal),
    readTasksOf(session, storyId, signal),
  ]);
  return story && { story, tasks };
}

/**
 * Every story tree of the project, in listing order, with a bounded window of stories in flight
 * (each story fans out into its task reads; the client's limiter bounds the connections).
 */
export async function* scanProject(
  session: TinypmSession,
  opts: { signal?: AbortSignal | undefined; withTasks?: boolean } = {},
): AsyncGenerator<StoryTree> {
  const stories = await session.listStories(opts.signal);
  const window = Math.max(2, session.concurrency * 2);
  const read = async (id: string): Promise<StoryTree | undefined> => {
    if (opts.withTasks === false) {
      const story = await readStory(session, id, opts.signal);
      return story && { story, tasks: [] };
    }
    return readStoryTree(session, id, opts.signal);
  };
  for await (const tree of mapOrdered(stories, window, (s) => read(s.id))) {
    if (tree) yield tree;
  }
}
