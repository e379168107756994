import type { Random } from "../server-kit/prng.js";
import type { GenerateSpec } from "./generate.js";
import {
  ACCEPTANCE,
  COLORS,
  type ActivityRecord,
  type CommentRecord,
  type IterationRecord,
  type ProjectRecord,
  type StoryRecord,
  type TaskRecord,
  type UserRecord,
} from "./model.js";

/** Dates relative to the generator's `today`. */
export interface Calendar {
  /** `yyyy-MM-dd`, `offset` days from today. */
  day(offset: number): string;
  /** `yyyy-MM-dd HH:mm:ss.SSS`, `offset` days from today at a minute of the day. */
  at(offset: number, minuteOfDay: number, ms: number): string;
}

interface Input {
  readonly spec: GenerateSpec;
  readonly random: Random;
  readonly cal: Calendar;
  readonly users: readonly UserRecord[];
  readonly project: ProjectRecord;
  readonly iterations: readonly IterationRecord[];
}

const VERBS = ["Add", "Fix", "Refactor", "Document", "Speed up", "Añadir", "Überarbeiten", "支持"];
const THINGS = [
  "login page",
  "checkout flow",
  "CSV export",
  "search results",
  "widget editor",
  "naïve caching",
  "日本語 labels",
  "<script> escaping & quoting",
  "🚀 launch checklist",
];
const TAGS = ["backend", "frontend", "ux", "bug", "tech-debt", "docs", "π-calc"];
const TASK_NAMES = ["Write tests", "Implement", "Code review", "Update docs", "Deploy to staging"];
const PARAGRAPH =
  "As a user I want the widget to behave predictably, so that I can trust the numbers it shows. " +
  "Acceptance: the totals match the ledger, the \"Save\" button is disabled while saving, and 'undo' works.";

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

function maybe<T>(random: Random, p: number, value: () => T): T | undefined {
  return random() < p ? value() : undefined;
}

function description(random: Random, i: number): string | undefined {
  switch (i % 5) {
    case 0:
      return undefined;
    case 1:
      return "Short one-line description.";
    case 2:
      return `First line\r\nSecond line with <markup> & "quotes"\r\n\r\n- bullet one\r\n- bullet two`;
    case 3:
      return Array.from({ length: 3 + Math.floor(random() * 20) }, () => PARAGRAPH).join("\n\n");
    default:
      return "Ünïcödé: 中文, Ελληνικά, עברית, emoji 🎉 and tabs\tinside.";
  }
}

/**
 * Where story i goes: every placement appears within the first five stories. With `closed`
 * (a percentage), that share of every hundred stories goes to the two past iterations and the
 * rest to the backlog, the current and a future iteration.
 */
function placement(
  i: number,
  iterations: readonly IterationRecord[],
  closed: number | undefined,
): number | undefined {
  const order = [undefined, 0, 2, 3, 1, undefined, 2];
  let k = order[i % order.length];
  if (closed !== undefined) {
    const open = [undefined, 2, 3, undefined, 2];
    k = i % 100 < closed ? i % 2 : open[i % open.length];
  }
  return k === undefined ? undefined : iterations[k]?.id;
}

export function generateStories(input: Input): {
  stories: StoryRecord[];
  tasks: TaskRecord[];
  comments: CommentRecord[];
  activities: ActivityRecord[];
} {
  const { spec, random, users, project } = input;
  const stories: StoryRecord[] = [];
  const tasks: TaskRecord[] = [];
  const comments: CommentRecord[] = [];
  const activities: ActivityRecord[] = [];
  const userId = () => pick(random, users).id;
  for (let i = 0; i < spec.stories; i++) {
    const story: StoryRecord = {
      id: i + 1,
      projectId: project.id,
      position: i + 1,
      name: `${pick(random, VERBS)} ${pick(random, THINGS)} #${i + 1}`,
      description: description(random, i),
      priority: (i % 4) + 1,
      estimatedEffort: maybe(random, 0.8, () => pick(random, project.estimates)),
      iterationId: placement(i, input.iterations, spec.closed),
      color: COLORS[i % COLORS.length],
      ownerId: i % 7 === 6 ? undefined : userId(),
      acceptingUserId: maybe(random, 0.4, userId),
      acceptanceStatus: ACCEPTANCE[i % ACCEPTANCE.length],
      tags: [...new Set(Array.from({ length: i % 4 }, () => pick(random, TAGS)))],
    };
    stories.push(story);
    for (let c = 0; c < spec.comments; c++) {
      comments.push(comment(input, { storyId: story.id }, c));
    }
    for (let t = 0; t < spec.tasks; t++) {
      const task = makeTask(input, story, tasks.length + 1, t);
      tasks.push(task);
      if (spec.comments > 0 && random() < 0.3)
        comments.push(comment(input, { taskId: task.id }, t));
      activities.push(...timeEntries(input, task));
    }
  }
  return { stories, tasks, comments, activities };
}

/** The task's status follows its story's iteration: done in the past, mixed now, not started later. */
function statusFor(input: Input, story: StoryRecord, t: number): number {
  const statuses = input.project.taskStatuses;
  const index = input.iterations.findIndex((it) => it.id === story.iterationId);
  const k =
    index < 0 || index > 2
      ? 0
      : index < 2
        ? statuses.length - 1
        : (t + story.id * 3) % statuses.length;
  return statuses[k]?.id ?? 1;
}

function makeTask(input: Input, story: StoryRecord, id: number, t: number): TaskRecord {
  const { random, cal, users, project } = input;
  const statusId = statusFor(input, story, t);
  const started = statusId !== project.taskStatuses[0]?.id;
  const done = statusId === project.taskStatuses[project.taskStatuses.length - 1]?.id;
  const assignees = Array.from({ length: Math.floor(random() * 3) }, () => pick(random, users).id);
  return {
    id,
    storyId: story.id,
    name: `${pick(random, TASK_NAMES)} (${t + 1})`,
    description: t === 0 ? undefined : `Task details for "${story.name}".\r\nLine two.`,
    statusId,
    estimatedEffort: maybe(random, 0.7, () => pick(random, project.taskEstimates)),
    startedAt: started ? cal.at(-10 - t, 540 + Math.floor(random() * 480), id % 1000) : undefined,
    completedAt: done
      ? cal.at(-2 - t, 600 + Math.floor(random() * 400), (id * 7) % 1000)
      : undefined,
    assignedUserIds: [...new Set(assignees)],
  };
}

function comment(
  input: Input,
  target: { storyId?: number; taskId?: number },
  n: number,
): CommentRecord {
  const { random, cal, users } = input;
  const multi = random() < 0.3;
  return {
    ...target,
    author: pick(random, users).name,
    date: cal.at(
      -Math.floor(random() * 40),
      Math.floor(random() * 1440),
      Math.floor(random() * 1000),
    ),
    body: multi
      ? `Looks good to me.\r\nOne nit: rename "x" to <y> & ship. (${n + 1})`
      : `Comment ${n + 1}: ✔ done`,
  };
}

function timeEntries(input: Input, task: TaskRecord): ActivityRecord[] {
  if (task.statusId === input.project.taskStatuses[0]?.id) return [];
  const { random, cal, users } = input;
  const out: ActivityRecord[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let k = 0; k < count; k++) {
    const entry: ActivityRecord = {
      taskId: task.id,
      userId: pick(random, users).id,
      date: cal.day(-1 - k * 2 - Math.floor(random() * 3)),
      timeSpent: pick(random, [0.5, 1, 1.5, 2, 3, 4, 6, 8]),
      timeLeft: maybe(random, 0.6, () => pick(random, [0, 1, 2.5, 4])),
    };
    if (!out.some((a) => a.userId === entry.userId && a.date === entry.date)) out.push(entry);
  }
  return out;
}
