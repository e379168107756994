import type { z } from "zod";
import type { ItemRef, TimeEntry, WorkItem } from "../../core/model.js";
import { mapOrdered } from "./ordered.js";
import { createListedDetails, type ListedDetails } from "./listed-details.js";
import { storyToItem, taskToItem } from "./map.js";
import { rawStory, rawTask } from "./schema.js";
import type { RawDoc, StorySummary, TaskSummary, DocumentCache } from "./document-cache.js";
import type { XmlNode } from "./wire.js";
import { orUnreadable, type OnUnreadable } from "./unreadable.js";

/** A story with its tasks, each carrying comments and time entries. */
interface StoryTree {
  readonly story: WorkItem;
  readonly tasks: readonly WorkItem[];
}

export async function readStory(
  session: DocumentCache,
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
  session: DocumentCache,
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
  session: DocumentCache,
  ref: ItemRef & { readonly parentId?: string | undefined },
  signal?: AbortSignal,
  onUnreadable?: OnUnreadable,
): Promise<WorkItem | undefined> {
  return orUnreadable({ kind: ref.kind, id: ref.id, parentId: ref.parentId }, onUnreadable, () =>
    ref.kind === "story"
      ? readStory(session, ref.id, signal)
      : readTask(session, ref.id, ref.parentId, signal),
  );
}

/** Reads the tasks of a story, concurrently (the request gate bounds the HTTP calls). */
export async function readTasksOf(
  session: DocumentCache,
  storyId: string,
  signal?: AbortSignal,
): Promise<WorkItem[]> {
  const ids = await session.listTaskIds(storyId, signal);
  const tasks = await Promise.all(ids.map((id) => readTask(session, id, storyId, signal)));
  return tasks.filter((t): t is WorkItem => t !== undefined);
}

/**
 * What one read of many stories shares: whether listings are complete (probed once per kind)
 * and the iteration timesheets read so far (each once per read).
 */
interface ReadRun {
  readonly lists: ListedDetails;
  readonly sheets: Map<string, Promise<Map<string, TimeEntry[]>>>;
}

export function createReadRun(): ReadRun {
  return { lists: createListedDetails(), sheets: new Map() };
}

function fromListed<T extends z.ZodType>(schema: T) {
  return (node: XmlNode): RawDoc<z.infer<T>> | undefined => {
    const parsed = schema.safeParse(node);
    return parsed.success ? { node, data: parsed.data } : undefined;
  };
}

/** A task's time entries: from its iteration's timesheet (2.6), else its own (2.6), else none. */
async function timeEntriesOf(
  session: DocumentCache,
  run: ReadRun,
  taskId: string,
  iterationId: string | undefined,
  signal?: AbortSignal,
): Promise<TimeEntry[]> {
  if ((await session.version()) !== "2.6") return [];
  if (iterationId === undefined) return session.timeEntries(taskId, signal);
  let sheet = run.sheets.get(iterationId);
  if (sheet === undefined) {
    sheet = session.iterationTimesheet(iterationId, signal);
    // A failed read is not kept: the next task of the iteration reads the timesheet again.
    sheet.catch(() => run.sheets.delete(iterationId));
    run.sheets.set(iterationId, sheet);
  }
  return (await sheet).get(taskId) ?? [];
}

async function readListedStory(
  session: DocumentCache,
  run: ReadRun,
  listed: StorySummary,
  signal?: AbortSignal,
): Promise<WorkItem | undefined> {
  const doc = await run.lists.detail(
    "story",
    listed.node,
    () => session.getStory(listed.id, signal),
    fromListed(rawStory),
  );
  if (!doc) return undefined;
  const [ctx, comments] = await Promise.all([
    session.context(),
    session.comments("story", listed.id, doc.data.comments, signal),
  ]);
  return storyToItem(doc.data, ctx, comments);
}

async function readListedTask(
  session: DocumentCache,
  run: ReadRun,
  listed: TaskSummary,
  story: StorySummary,
  signal?: AbortSignal,
): Promise<WorkItem | undefined> {
  const doc = await run.lists.detail(
    "task",
    listed.node,
    () => session.getTask(listed.id, signal),
    fromListed(rawTask),
  );
  if (!doc) return undefined;
  const [ctx, comments, timeEntries] = await Promise.all([
    session.context(),
    session.comments("task", listed.id, doc.data.comments, signal),
    timeEntriesOf(session, run, listed.id, story.iterationId, signal),
  ]);
  return taskToItem(doc.data, ctx, { storyId: story.id, comments, timeEntries });
}

/** What a read of story trees is told: its signal, whether tasks are wanted, where unreadable items go. */
interface TreeOptions {
  readonly signal?: AbortSignal | undefined;
  readonly withTasks?: boolean | undefined;
  readonly onUnreadable?: OnUnreadable;
}

/**
 * A listed story and its tasks; `undefined` when the story vanished during the read, or when it
 * cannot be read (`onUnreadable`): then its tasks are left out with it — a task read without its
 * story could be taken for an orphan. A task that cannot be read is left out alone.
 */
async function readStoryTree(
  session: DocumentCache,
  run: ReadRun,
  listed: StorySummary,
  opts: TreeOptions = {},
): Promise<StoryTree | undefined> {
  const taskFailures: Parameters<NonNullable<OnUnreadable>>[0][] = [];
  const onTask: OnUnreadable =
    opts.onUnreadable === undefined ? undefined : (u) => taskFailures.push(u);
  const readTasks = async (): Promise<WorkItem[]> => {
    if (opts.withTasks === false) return [];
    // The story's task list is the story's own document: unreadable, it fails the story.
    const tasks = await session.listTasks(listed.id, opts.signal);
    const items = await Promise.all(
      tasks.map((t) =>
        orUnreadable({ kind: "task", id: t.id, parentId: listed.id }, onTask, () =>
          readListedTask(session, run, t, listed, opts.signal),
        ),
      ),
    );
    return items.filter((t): t is WorkItem => t !== undefined);
  };
  const tree = await orUnreadable(
    { kind: "story", id: listed.id, title: listed.name },
    opts.onUnreadable,
    async () => {
      const [story, tasks] = await Promise.all([
        readListedStory(session, run, listed, opts.signal),
        readTasks(),
      ]);
      return story && { story, tasks };
    },
  );
  if (tree !== undefined) for (const u of taskFailures) opts.onUnreadable?.(u);
  return tree;
}

/**
 * The trees of the listed stories, in listing order, with a bounded window of stories in flight
 * (each story fans out into its task reads; the request gate bounds the requests).
 */
export async function* readStoryTrees(
  session: DocumentCache,
  run: ReadRun,
  stories: readonly StorySummary[],
  opts: TreeOptions = {},
): AsyncGenerator<StoryTree> {
  const window = Math.max(2, session.concurrency * 2);
  for await (const tree of mapOrdered(stories, window, (s) =>
    readStoryTree(session, run, s, opts),
  )) {
    if (tree) yield tree;
  }
}

/** Every story tree of the project (a full scan), in listing order. */
export async function* scanProject(
  session: DocumentCache,
  opts: TreeOptions = {},
): AsyncGenerator<StoryTree> {
  const stories = await session.listStories(opts.signal);
  yield* readStoryTrees(session, createReadRun(), stories, opts);
}
