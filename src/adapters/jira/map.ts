import type {
  Comment,
  JsonValue,
  Marker,
  TimeEntry,
  UserRef,
  WorkItem,
  WorkItemDraft,
  WorkItemFields,
} from "../../core/model.js";
import { MARKER_VERSION, withoutPersonalData } from "../../core/identity.js";
import { markdownToAdf, type AdfNode } from "./adf.js";
import { richDescriptionOf } from "./adf-blocks.js";
import { adfToMarkdown } from "./adf-render.js";
import {
  PROPERTY_KEY,
  rawMarkerProperty,
  rawSprint,
  type RawComment,
  type RawIssue,
  type RawSprint,
  type RawUser,
  type RawWorklog,
} from "./schema.js";

/** What the pure mapping needs to know about the site. */
export interface MapContext {
  readonly baseUrl: string;
  /** Data Center: what rewriting a block read as wiki loses beyond ADF's losses. */
  readonly blockLost?: ((node: AdfNode, text: string) => readonly string[]) | undefined;
  readonly storyPointsField: string | undefined;
  readonly sprintField: string;
}

/**
 * A Jira user as a `UserRef`: the accountId, the display name, and the email address when the
 * user's profile lets the caller see it (Jira omits it otherwise; it is the matcher's best key).
 */
export function userRef(user: RawUser | null | undefined): UserRef | undefined {
  if (!user) return undefined;
  const email = user.emailAddress?.trim();
  return {
    id: user.accountId,
    ...(user.displayName !== undefined && { name: user.displayName }),
    ...(email !== undefined && email !== "" && { email }),
  };
}

function richToMarkdown(value: unknown): string {
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object")
    return adfToMarkdown(value as Parameters<typeof adfToMarkdown>[0]);
  return "";
}

export function toComment(raw: RawComment): Comment {
  return {
    id: raw.id,
    author: userRef(raw.author) ?? {},
    createdAt: raw.created,
    body: richToMarkdown(raw.body),
  };
}

export function toTimeEntry(raw: RawWorklog): TimeEntry {
  const comment = richToMarkdown(raw.comment);
  return {
    id: raw.id,
    user: userRef(raw.author) ?? {},
    date: raw.started.slice(0, 10),
    hours: raw.timeSpentSeconds / 3600,
    ...(comment !== "" && { comment }),
  };
}

/** The active or future sprint an issue is in (the last one listed), if any. */
function currentSprint(value: unknown): RawSprint | undefined {
  if (!Array.isArray(value)) return undefined;
  const sprints = value.flatMap((v) => {
    const parsed = rawSprint.safeParse(v);
    return parsed.success ? [parsed.data] : [];
  });
  const open = sprints.filter((s) => s.state !== "closed");
  return open.at(-1);
}

export interface IssueExtras {
  readonly comments?: readonly RawComment[] | undefined;
  readonly worklogs?: readonly RawWorklog[] | undefined;
}

/** A raw (validated) Jira issue → the canonical WorkItem. */
export function toWorkItem(raw: RawIssue, ctx: MapContext, extras: IssueExtras = {}): WorkItem {
  const f = raw.fields;
  const isTask = f.issuetype.subtask === true;
  const sprint = currentSprint(f[ctx.sprintField]);
  const points = ctx.storyPointsField === undefined ? undefined : f[ctx.storyPointsField];
  const assignee = userRef(f.assignee);
  const property = rawMarkerProperty.safeParse(raw.properties?.[PROPERTY_KEY] ?? {});
  const prop = property.success ? property.data : {};
  return {
    system: "jira",
    kind: isTask ? "task" : "story",
    id: raw.key,
    ...(isTask && f.parent && { parentId: f.parent.key }),
    title: f.summary,
    // No description (null, or an empty document) is "none" in the canonical model.
    description: richToMarkdown(f.description) || undefined,
    status: f.status.name,
    ...(f.priority && { priority: f.priority.name }),
    ...(typeof points === "number" && { estimate: points }),
    ...(sprint && { iteration: { id: String(sprint.id), name: sprint.name } }),
    assignees: assignee ? [assignee] : [],
    labels: [...(f.labels ?? [])],
    comments: (extras.comments ?? f.comment?.comments ?? []).map(toComment),
    timeEntries: (extras.worklogs ?? f.worklog?.worklogs ?? []).map(toTimeEntry),
    metadata: prop.meta ?? {},
    ...(prop.marker && { marker: prop.marker }),
    ...(f.updated !== undefined && { updatedAt: f.updated }),
    url: `${ctx.baseUrl}/browse/${raw.key}`,
    richDescription: richDescriptionOf(f.description, ctx.blockLost),
  };
}

interface CreateContext {
  readonly projectKey: string;
  readonly storyPointsField: string | undefined;
  readonly storyType: string;
  readonly subtaskType: string;
  /** The Sprint custom field (`com.pyxis.greenhopper.jira:gh-sprint`). */
  readonly sprintField?: string | undefined;
}

/** What a create sets beyond the draft's own fields (resolved by the caller). */
interface CreateExtras {
  /** The sprint a story goes into (a sub-task follows its parent's sprint: never set). */
  readonly sprintId?: number | undefined;
  /** Fields the create's transition requires (e.g. the resolution of Reject). */
  readonly transitionFields?: Record<string, unknown> | undefined;
}

/** The `fields` of a create request (the status is reached by transitions). */
export function draftToFields(
  draft: WorkItemDraft,
  ctx: CreateContext,
  extras: CreateExtras = {},
): Record<string, unknown> {
  const isTask = draft.kind === "task";
  return {
    project: { key: ctx.projectKey },
    issuetype: { name: isTask ? ctx.subtaskType : ctx.storyType },
    ...(isTask && draft.parentId !== undefined && { parent: { key: draft.parentId } }),
    ...setToFields(draft, ctx.storyPointsField),
    ...(!isTask &&
      extras.sprintId !== undefined &&
      ctx.sprintField !== undefined && { [ctx.sprintField]: extras.sprintId }),
    ...extras.transitionFields,
  };
}

type SettableFields = Partial<
  Pick<WorkItemFields, "title" | "description" | "priority" | "estimate" | "assignees" | "labels">
>;

/** The editable fields of a patch (or draft), as Jira `fields`. */
export function setToFields(
  set: SettableFields,
  storyPointsField: string | undefined,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (set.title !== undefined) fields.summary = set.title;
  if ("description" in set) fields.description = markdownToAdf(set.description ?? "");
  // Jira always has a priority (the scheme's default when none is given): it cannot be cleared,
  // so "no priority" leaves the issue's priority as it is.
  if (set.priority !== undefined) fields.priority = { name: set.priority };
  if ("estimate" in set && storyPointsField !== undefined)
    fields[storyPointsField] = set.estimate ?? null;
  if (set.labels !== undefined) fields.labels = [...set.labels];
  if (set.assignees !== undefined) {
    const id = set.assignees.find((a) => a.id !== undefined)?.id;
    fields.assignee = id === undefined ? null : { accountId: id };
  }
  return fields;
}

/** The value of the `tinypm-sync` entity property: marker and metadata (flat copies for JQL). */
export function propertyValue(
  marker: Marker | undefined,
  meta: Readonly<Record<string, JsonValue>> | undefined,
): Record<string, unknown> {
  // The flat copies are what JQL searches; `base` (digests) stays inside `marker` only.
  const flat = marker && {
    job: marker.job,
    origin: marker.origin,
    originKind: marker.originKind,
    originId: marker.originId,
    ...(marker.instance !== undefined && { instance: marker.instance }),
  };
  return {
    ...(marker && { ...flat, v: MARKER_VERSION, marker }),
    meta: withoutPersonalData((meta ?? {}) as JsonValue),
  };
}

/** `started` for a worklog on a calendar date: 09:00 UTC in Jira's platform format. */
export function worklogStarted(date: string): string {
  return `${date.slice(0, 10)}T09:00:00.000+0000`;
}
