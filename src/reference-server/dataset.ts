import { readFileSync } from "node:fs";
import { z } from "zod";
import { ACCEPTANCE, COLORS, type Dataset } from "./model.js";
import { isLongDate, isShortDate } from "./xml-write.js";

/**
 * Loading a dataset (`--dataset FILE`, or an object in tests): the JSON format documented in
 * docs/reference-server.md, validated with zod, then checked for dangling references.
 */
const id = z.number().int().positive();
const decimal = z.number().nonnegative();
const shortDate = z.string().refine(isShortDate, "expected a yyyy-MM-dd date");
const longDate = z.string().refine(isLongDate, "expected a yyyy-MM-dd HH:mm:ss.SSS timestamp");

const user = z.strictObject({
  id,
  name: z.string(),
  login: z.string(),
  email: z.string(),
  active: z.boolean().default(true),
  initials: z.string().optional(),
});
const project = z.strictObject({
  id,
  code: z.string(),
  name: z.string(),
  description: z.string().optional(),
  startDate: shortDate.optional(),
  targetFinishDate: shortDate.optional(),
  ownerId: id.optional(),
  taskStatuses: z.array(z.strictObject({ id, name: z.string() })).min(1),
  estimates: z.array(decimal).default([]),
  taskEstimates: z.array(decimal).default([]),
  iterationLength: z.number().int().nonnegative().optional(),
  defaultTask: z.string().optional(),
  active: z.boolean().default(true),
});
const iteration = z.strictObject({
  id,
  projectId: id,
  name: z.string(),
  goal: z.string().optional(),
  plannedVelocity: decimal.optional(),
  position: z.number().int(),
  startDate: shortDate,
  duration: z.number().int().positive(),
});
const story = z.strictObject({
  id,
  projectId: id,
  position: z.number().int(),
  name: z.string().min(1),
  description: z.string().optional(),
  priority: z.number().int().min(1).max(4).optional(),
  estimatedEffort: decimal.optional(),
  iterationId: id.optional(),
  color: z.enum(COLORS).optional(),
  ownerId: id.optional(),
  acceptingUserId: id.optional(),
  acceptanceStatus: z.enum(ACCEPTANCE).optional(),
  tags: z.array(z.string()).default([]),
});
const task = z.strictObject({
  id,
  storyId: id,
  name: z.string().min(1),
  description: z.string().optional(),
  statusId: id,
  estimatedEffort: decimal.optional(),
  startedAt: longDate.optional(),
  completedAt: longDate.optional(),
  assignedUserIds: z.array(id).default([]),
});
const comment = z.strictObject({
  storyId: id.optional(),
  taskId: id.optional(),
  author: z.string(),
  date: longDate,
  body: z.string(),
});
const activity = z.strictObject({
  taskId: id,
  userId: id,
  date: shortDate,
  timeSpent: decimal,
  timeLeft: decimal.optional(),
});

const DatasetSchema = z.strictObject({
  users: z.array(user).default([]),
  projects: z.array(project).default([]),
  iterations: z.array(iteration).default([]),
  stories: z.array(story).default([]),
  tasks: z.array(task).default([]),
  comments: z.array(comment).default([]),
  activities: z.array(activity).default([]),
});

/** Thrown for an unreadable or invalid dataset; the message lists every problem found. */
export class DatasetError extends Error {}

/** Validates a dataset value (already parsed JSON). */
export function validateDataset(value: unknown, source = "dataset"): Dataset {
  const parsed = DatasetSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new DatasetError(`${source} is invalid: ${problems.join("; ")}`);
  }
  const data = parsed.data;
  const problems = danglingReferences(data);
  if (problems.length > 0) {
    throw new DatasetError(`${source} is invalid: ${problems.slice(0, 10).join("; ")}`);
  }
  return data;
}

/** Reads and validates a dataset JSON file. */
export function loadDatasetFile(path: string): Dataset {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new DatasetError(
      `cannot read dataset ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return validateDataset(raw, `dataset ${path}`);
}

function danglingReferences(d: Dataset): string[] {
  const ids = (list: readonly { id: number }[]) => new Set(list.map((x) => x.id));
  const users = ids(d.users);
  const projects = ids(d.projects);
  const storyProject = new Map(d.stories.map((s) => [s.id, s.projectId]));
  const stories = ids(d.stories);
  const tasks = ids(d.tasks);
  const out: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) out.push(what);
  };
  const lists: [string, readonly { id: number }[]][] = [
    ["users", d.users],
    ["projects", d.projects],
    ["stories", d.stories],
    ["tasks", d.tasks],
  ];
  for (const [name, list] of lists) {
    check(ids(list).size === list.length, `${name}: duplicate ids`);
  }
  for (const p of d.projects)
    check(
      p.ownerId === undefined || users.has(p.ownerId),
      `project ${p.id}: unknown owner ${p.ownerId}`,
    );
  for (const it of d.iterations)
    check(projects.has(it.projectId), `iteration ${it.id}: unknown project ${it.projectId}`);
  for (const s of d.stories) {
    check(projects.has(s.projectId), `story ${s.id}: unknown project ${s.projectId}`);
    const it = d.iterations.find((i) => i.id === s.iterationId);
    check(
      s.iterationId === undefined || it?.projectId === s.projectId,
      `story ${s.id}: iteration ${s.iterationId} is not an iteration of project ${s.projectId}`,
    );
    for (const u of [s.ownerId, s.acceptingUserId])
      check(u === undefined || users.has(u), `story ${s.id}: unknown user ${u}`);
  }
  for (const t of d.tasks) {
    const projectId = storyProject.get(t.storyId);
    check(projectId !== undefined, `task ${t.id}: unknown story ${t.storyId}`);
    const statuses = d.projects.find((p) => p.id === projectId)?.taskStatuses ?? [];
    check(
      projectId === undefined || statuses.some((st) => st.id === t.statusId),
      `task ${t.id}: status ${t.statusId} is not a task status of project ${projectId}`,
    );
    for (const u of t.assignedUserIds) check(users.has(u), `task ${t.id}: unknown user ${u}`);
  }
  for (const c of d.comments) {
    const ok =
      (c.storyId === undefined) !== (c.taskId === undefined) &&
      (c.storyId === undefined || stories.has(c.storyId)) &&
      (c.taskId === undefined || tasks.has(c.taskId));
    check(ok, `comment "${c.body.slice(0, 20)}": needs exactly one existing storyId or taskId`);
  }
  for (const a of d.activities) {
    check(
      tasks.has(a.taskId) && users.has(a.userId),
      `activity of task ${a.taskId}: unknown task or user ${a.userId}`,
    );
  }
  return out;
}
