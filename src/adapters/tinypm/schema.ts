import { z } from "zod";

/**
 * zod schemas of every tinyPM payload, 2.0–2.5 and 2.6 shapes alike (tinypm-wire.md). Values are
 * kept as the strings the wire carries (`parseTagValue: false`); `map.ts` converts them. Objects
 * are loose so unknown elements survive a read-modify-write.
 */

const EMPTY = (value: unknown): unknown => (value === "" ? {} : value);

const idText = z.string().regex(/^\s*\d+\s*$/, "expected an integer id");
const decimalText = z.string().regex(/^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/, "expected a number");
const text = z.string();

/** A list wrapper such as `<tags><tag>…</tag></tags>`, or the empty `<tags/>`. */
function wrapper<T extends z.ZodType>(item: string, schema: T) {
  return z.preprocess(EMPTY, z.looseObject({ [item]: z.array(schema).optional() }));
}

export const rawUser = z.looseObject({
  id: idText,
  name: text.optional(),
  login: text.optional(),
  email: text.optional(),
  active: text.optional(),
  initials: text.optional(),
});
export type RawUser = z.infer<typeof rawUser>;

export const rawUsers = wrapper("user", rawUser);

const rawStatus = z.looseObject({ id: idText, name: text.optional() });
export type RawStatus = z.infer<typeof rawStatus>;

const rawProjectSummary = z.looseObject({
  id: idText,
  code: text.optional(),
  name: text.optional(),
  active: text.optional(),
});
export const rawProjects = wrapper("project", rawProjectSummary);

export const rawProject = z.looseObject({
  id: idText,
  code: text.optional(),
  name: text.optional(),
  description: text.optional(),
  startDate: text.optional(),
  targetFinishDate: text.optional(),
  owner: z.preprocess(EMPTY, rawUser.partial()).optional(),
  taskStatuses: wrapper("status", rawStatus).optional(),
  estimates: wrapper("value", decimalText).optional(),
  taskEstimates: wrapper("value", decimalText).optional(),
  iterationLength: text.optional(),
  defaultTask: text.optional(),
  active: text.optional(),
});
export type RawProject = z.infer<typeof rawProject>;

const rawIteration = z.looseObject({
  id: idText,
  name: text.optional(),
  goal: text.optional(),
  plannedVelocity: decimalText.optional(),
  position: decimalText.optional(),
  startDate: text.optional(),
  duration: decimalText.optional(),
});
export type RawIteration = z.infer<typeof rawIteration>;
export const rawIterations = wrapper("iteration", rawIteration);

export const rawComment = z.looseObject({
  author: text.optional(),
  date: text.optional(),
  body: text.optional(),
});
export type RawComment = z.infer<typeof rawComment>;
export const rawComments = wrapper("comment", rawComment);

const rawPriority = z.looseObject({
  id: idText.optional(),
  name: text.optional(),
  priority: text.optional(),
});

export const rawStory = z.looseObject({
  id: idText,
  position: decimalText.optional(),
  name: text.optional(),
  description: text.optional(),
  priority: z.union([rawPriority, text]).optional(),
  estimatedEffort: decimalText.optional(),
  iteration: z.looseObject({ id: idText, name: text.optional() }).optional(),
  iterationId: idText.optional(),
  color: text.optional(),
  owner: rawUser.optional(),
  acceptingUser: rawUser.optional(),
  acceptanceStatus: text.optional(),
  tags: wrapper("tag", text).optional(),
  comments: rawComments.optional(),
});
export type RawStory = z.infer<typeof rawStory>;

const rawStorySummary = z.looseObject({
  id: idText,
  name: text.optional(),
  iterationId: idText.optional(),
  /** Only in complete listings (the detail form nests the iteration). */
  iteration: z.looseObject({ id: idText }).optional(),
  position: decimalText.optional(),
});
export const rawStories = wrapper("userStory", rawStorySummary);

/** 2.6: `{id, name}` of the project's statuses; 2.0–2.5: the enum text. */
const rawTaskStatus = z.union([text, rawStatus]);

export const rawTask = z.looseObject({
  id: idText,
  name: text.optional(),
  description: text.optional(),
  status: rawTaskStatus.optional(),
  estimatedEffort: decimalText.optional(),
  startedAt: text.optional(),
  completedAt: text.optional(),
  assignedUsers: wrapper("user", rawUser).optional(),
  comments: rawComments.optional(),
});
export type RawTask = z.infer<typeof rawTask>;

const rawTaskSummary = z.looseObject({
  id: idText,
  name: text.optional(),
  status: rawTaskStatus.optional(),
});
export const rawTasks = wrapper("task", rawTaskSummary);

export const rawActivity = z.looseObject({
  date: text,
  timeSpent: decimalText,
  timeLeft: decimalText.optional(),
  user: rawUser.optional(),
  task: z.looseObject({ id: idText }).optional(),
  userStory: z.looseObject({ id: idText }).optional(),
});
export type RawActivity = z.infer<typeof rawActivity>;
export const rawTimesheet = wrapper("activity", rawActivity);

/** The 2.6 create answer: any root with an `id` child (`<idObject><id>7</id></idObject>`). */
export const rawIdObject = z.looseObject({ id: idText });

export const rawError = z.looseObject({ status: text.optional(), message: text.optional() });
