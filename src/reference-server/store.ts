import { addDays } from "./xml-write.js";
import type {
  ActivityRecord,
  CommentRecord,
  Dataset,
  IterationRecord,
  ProjectRecord,
  StoryRecord,
  TaskRecord,
  UserRecord,
} from "./model.js";

export type StoryInput = Omit<StoryRecord, "id">;
export type TaskInput = Omit<TaskRecord, "id">;

/** The result of a timesheet upsert. */
interface UpsertResult {
  readonly activity: ActivityRecord;
  readonly created: boolean;
  readonly removed: boolean;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function byPositionThenId(a: StoryRecord, b: StoryRecord): number {
  return a.position - b.position || a.id - b.id;
}

/**
 * The in-memory tinyPM data with the indexes the routes need. Built from a Dataset (deep-copied,
 * so a reset can rebuild it from the same value).
 */
export class ReferenceStore {
  private readonly users = new Map<number, UserRecord>();
  private readonly projects = new Map<number, ProjectRecord>();
  private readonly iterations = new Map<number, IterationRecord>();
  private readonly iterationsByProject = new Map<number, IterationRecord[]>();
  private readonly stories = new Map<number, StoryRecord>();
  private readonly storyIdsByProject = new Map<number, Set<number>>();
  private readonly tasks = new Map<number, TaskRecord>();
  private readonly taskIdsByStory = new Map<number, number[]>();
  private readonly comments = new Map<string, CommentRecord[]>();
  private readonly activities = new Map<number, ActivityRecord[]>();
  /** Sorted story lists per project, dropped on every story write. */
  private readonly sortedStories = new Map<number, StoryRecord[]>();
  private nextStoryId = 1;
  private nextTaskId = 1;

  constructor(data: Dataset) {
    const copy = structuredClone(data);
    for (const u of copy.users) this.users.set(u.id, u);
    for (const p of copy.projects) {
      this.projects.set(p.id, p);
      this.storyIdsByProject.set(p.id, new Set());
      this.iterationsByProject.set(p.id, []);
    }
    for (const it of copy.iterations) {
      this.iterations.set(it.id, it);
      push(this.iterationsByProject, it.projectId, it);
    }
    for (const list of this.iterationsByProject.values()) {
      list.sort((a, b) => a.position - b.position || a.id - b.id);
    }
    for (const s of copy.stories) this.indexStory(s);
    for (const t of copy.tasks) this.indexTask(t);
    for (const c of copy.comments) this.indexComment(c);
    for (const a of copy.activities) push(this.activities, a.taskId, a);
    this.nextStoryId = Math.max(0, ...this.stories.keys()) + 1;
    this.nextTaskId = Math.max(0, ...this.tasks.keys()) + 1;
  }

  private indexStory(s: StoryRecord): void {
    this.sortedStories.delete(s.projectId);
    this.stories.set(s.id, s);
    let ids = this.storyIdsByProject.get(s.projectId);
    if (!ids) this.storyIdsByProject.set(s.projectId, (ids = new Set()));
    ids.add(s.id);
  }

  private indexTask(t: TaskRecord): void {
    this.tasks.set(t.id, t);
    push(this.taskIdsByStory, t.storyId, t.id);
  }

  private indexComment(c: CommentRecord): void {
    const key = c.taskId === undefined ? `s${c.storyId ?? 0}` : `t${c.taskId}`;
    const list = this.comments.get(key);
    if (!list) {
      this.comments.set(key, [c]);
      return;
    }
    let i = list.length;
    while (i > 0 && (list[i - 1]?.date ?? "") > c.date) i--;
    list.splice(i, 0, c);
  }

  user = (id: number): UserRecord | undefined => this.users.get(id);
  project = (id: number): ProjectRecord | undefined => this.projects.get(id);
  iteration = (id: number): IterationRecord | undefined => this.iterations.get(id);
  story = (id: number): StoryRecord | undefined => this.stories.get(id);
  task = (id: number): TaskRecord | undefined => this.tasks.get(id);

  listUsers(): UserRecord[] {
    return [...this.users.values()].sort((a, b) => a.id - b.id);
  }

  listProjects(): ProjectRecord[] {
    return [...this.projects.values()].sort((a, b) => a.id - b.id);
  }

  iterationsOf(projectId: number): readonly IterationRecord[] {
    return this.iterationsByProject.get(projectId) ?? [];
  }

  /** The iteration whose `[startDate, startDate + duration)` contains `today` (`yyyy-MM-dd`). */
  currentIteration(projectId: number, today: string): IterationRecord | undefined {
    return this.iterationsOf(projectId).find(
      (it) => it.startDate <= today && today < addDays(it.startDate, it.duration),
    );
  }

  /** A project's stories ordered by position, then id. */
  storiesOf(projectId: number): readonly StoryRecord[] {
    const cached = this.sortedStories.get(projectId);
    if (cached) return cached;
    const ids = this.storyIdsByProject.get(projectId) ?? new Set<number>();
    const out: StoryRecord[] = [];
    for (const id of ids) {
      const s = this.stories.get(id);
      if (s) out.push(s);
    }
    out.sort(byPositionThenId);
    this.sortedStories.set(projectId, out);
    return out;
  }

  storiesInIteration(iteration: IterationRecord): StoryRecord[] {
    return this.storiesOf(iteration.projectId).filter((s) => s.iterationId === iteration.id);
  }

  tasksOf(storyId: number): TaskRecord[] {
    const ids = this.taskIdsByStory.get(storyId) ?? [];
    return ids.map((id) => this.tasks.get(id)).filter((t): t is TaskRecord => t !== undefined);
  }

  /** Comments of a story or a task, in date order. */
  commentsOf(kind: "story" | "task", id: number): readonly CommentRecord[] {
    return this.comments.get(`${kind === "story" ? "s" : "t"}${id}`) ?? [];
  }

  activitiesOfTask(taskId: number): ActivityRecord[] {
    return sortActivities([...(this.activities.get(taskId) ?? [])]);
  }

  activitiesOfIteration(iteration: IterationRecord): ActivityRecord[] {
    const out: ActivityRecord[] = [];
    for (const s of this.storiesInIteration(iteration)) {
      for (const id of this.taskIdsByStory.get(s.id) ?? []) {
        out.push(...(this.activities.get(id) ?? []));
      }
    }
    return sortActivities(out);
  }

  projectOfStory(story: StoryRecord): ProjectRecord | undefined {
    return this.projects.get(story.projectId);
  }

  /** The position after the last story of a project. */
  nextPosition(projectId: number): number {
    let max = 0;
    for (const id of this.storyIdsByProject.get(projectId) ?? []) {
      max = Math.max(max, this.stories.get(id)?.position ?? 0);
    }
    return max + 1;
  }

  createStory(input: StoryInput): StoryRecord {
    const story: StoryRecord = { ...input, id: this.nextStoryId++ };
    this.indexStory(story);
    return story;
  }

  replaceStory(id: number, input: StoryInput): StoryRecord {
    const story: StoryRecord = { ...input, id };
    this.sortedStories.delete(story.projectId);
    this.stories.set(id, story);
    return story;
  }

  /** Deletes a story with its tasks, comments and time entries. */
  deleteStory(id: number): void {
    const story = this.stories.get(id);
    if (!story) return;
    for (const taskId of [...(this.taskIdsByStory.get(id) ?? [])]) this.deleteTask(taskId);
    this.taskIdsByStory.delete(id);
    this.comments.delete(`s${id}`);
    this.storyIdsByProject.get(story.projectId)?.delete(id);
    this.sortedStories.delete(story.projectId);
    this.stories.delete(id);
  }

  createTask(input: TaskInput): TaskRecord {
    const task: TaskRecord = { ...input, id: this.nextTaskId++ };
    this.indexTask(task);
    return task;
  }

  replaceTask(id: number, input: TaskInput): TaskRecord {
    const task: TaskRecord = { ...input, id };
    this.tasks.set(id, task);
    return task;
  }

  /** Deletes a task with its comments and time entries. */
  deleteTask(id: number): void {
    const task = this.tasks.get(id);
    if (!task) return;
    const siblings = this.taskIdsByStory.get(task.storyId);
    if (siblings) siblings.splice(siblings.indexOf(id), 1);
    this.comments.delete(`t${id}`);
    this.activities.delete(id);
    this.tasks.delete(id);
  }

  addComment(comment: CommentRecord): CommentRecord {
    this.indexComment(comment);
    return comment;
  }

  /** One entry per (task, user, date): replaces it; `timeSpent` 0 removes it. */
  upsertActivity(activity: ActivityRecord): UpsertResult {
    const list = this.activities.get(activity.taskId) ?? [];
    const i = list.findIndex((a) => a.userId === activity.userId && a.date === activity.date);
    const created = i < 0;
    if (activity.timeSpent === 0) {
      if (!created) list.splice(i, 1);
      return { activity, created: false, removed: !created };
    }
    if (created) list.push(activity);
    else list[i] = activity;
    this.activities.set(activity.taskId, list);
    return { activity, created, removed: false };
  }

  /** A copy of the whole data, in the dataset format. */
  toDataset(): Dataset {
    const comments = [...this.comments.values()].flat();
    return structuredClone({
      users: this.listUsers(),
      projects: this.listProjects(),
      iterations: [...this.iterations.values()],
      stories: [...this.stories.values()].sort((a, b) => a.id - b.id),
      tasks: [...this.tasks.values()].sort((a, b) => a.id - b.id),
      comments,
      activities: [...this.activities.values()].flat(),
    });
  }
}

function sortActivities(list: ActivityRecord[]): ActivityRecord[] {
  return list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.userId - b.userId));
}
