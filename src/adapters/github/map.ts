import type {
  Comment,
  Iteration,
  JsonValue,
  Marker,
  UserRef,
  WorkItem,
  WorkItemDraft,
  WorkItemFields,
} from "../../core/model.js";
import { endDateOf } from "./due-date.js";
import { parseCommentBody, parseIssueBody, withIssueMarker } from "./marker.js";
import type { RawComment, RawIssue, RawMilestone } from "./schema.js";

/** The canonical GitHub statuses. */
export const GITHUB_STATUSES = [
  "open",
  "closed:completed",
  "closed:not_planned",
  "closed:duplicate",
] as const;

type GithubState =
  | { readonly state: "open"; readonly state_reason?: "reopened" }
  | { readonly state: "closed"; readonly state_reason: "completed" | "not_planned" | "duplicate" };

/** `open`, or `closed:<reason>` (a closed issue with no reason is `closed:completed`). */
export function statusOf(issue: Pick<RawIssue, "state" | "state_reason">): string {
  if (issue.state === "open") return "open";
  const reason = issue.state_reason;
  return reason === "not_planned" || reason === "duplicate"
    ? `closed:${reason}`
    : "closed:completed";
}

/** The state and reason for a canonical status; unknown statuses are refused. */
export function stateFor(status: string): GithubState {
  switch (status) {
    case "open":
      return { state: "open" };
    case "closed":
    case "closed:completed":
      return { state: "closed", state_reason: "completed" };
    case "closed:not_planned":
      return { state: "closed", state_reason: "not_planned" };
    case "closed:duplicate":
      return { state: "closed", state_reason: "duplicate" };
    default:
      throw new RangeError(`GitHub status "${status}" is not one of ${GITHUB_STATUSES.join(", ")}`);
  }
}

/** The issue number at the end of an issue API URL (`…/issues/12` → `"12"`). */
export function numberFromUrl(url: string | null | undefined): string | undefined {
  const m = /\/issues\/(\d+)\/?$/.exec(url ?? "");
  return m?.[1];
}

/** GitHub timestamps carry `Z`; keep them, normalising any fraction away. */
function isoZ(value: string): string {
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString().replace(/\.000Z$/, "Z");
}

export function toUser(login: string): UserRef {
  return { id: login, login };
}

export function toComment(raw: RawComment): Comment {
  const login = raw.user?.login ?? "ghost";
  return {
    id: String(raw.id),
    author: toUser(login),
    createdAt: isoZ(raw.created_at),
    body: parseCommentBody(raw.body).text,
  };
}

/** A raw issue (and its comments) as a canonical GitHub-flavoured work item. Pure. */
export function toWorkItem(issue: RawIssue, comments: readonly RawComment[] = []): WorkItem {
  const parsed = parseIssueBody(issue.body);
  const parentId = numberFromUrl(issue.parent_issue_url);
  const kind = parentId !== undefined ? "task" : (parsed.block?.marker.originKind ?? "story");
  return {
    system: "github",
    kind,
    id: String(issue.number),
    parentId,
    title: issue.title,
    // GitHub does not tell an empty body from none: both are "no description".
    description: parsed.description === "" ? undefined : parsed.description,
    status: statusOf(issue),
    labels: issue.labels.map((l) => (typeof l === "string" ? l : l.name)),
    assignees: (issue.assignees ?? []).map((u) => toUser(u.login)),
    iteration:
      issue.milestone == null
        ? undefined
        : { id: String(issue.milestone.number), name: issue.milestone.title },
    comments: comments.map(toComment),
    timeEntries: [],
    metadata: parsed.block?.meta ?? {},
    marker: parsed.block?.marker,
    updatedAt: isoZ(issue.updated_at),
    url: issue.html_url,
  };
}

export function toIteration(m: RawMilestone): Iteration {
  return {
    id: String(m.number),
    name: m.title,
    goal: m.description ?? undefined,
    endDate: m.due_on == null ? undefined : endDateOf(m.due_on),
    state: m.state === "closed" ? "closed" : "active",
  };
}

/** The body to write: the description plus the hidden block when there is a marker. */
export function bodyFor(args: {
  description: string | undefined;
  marker: Marker | undefined;
  metadata: Readonly<Record<string, JsonValue>> | undefined;
}): string {
  const text = args.description ?? "";
  if (args.marker === undefined) return text;
  return withIssueMarker(text, { marker: args.marker, meta: args.metadata ?? {} });
}

interface CreateIssueBody {
  title: string;
  body: string;
  labels: string[];
  assignees: string[];
  milestone?: number;
}

function logins(users: readonly UserRef[]): string[] {
  return users.map((u) => u.login ?? u.id ?? "").filter((l) => l !== "");
}

/** The `POST /issues` body: labels, assignees and milestone go into the create call itself. */
export function createBodyFor(
  draft: WorkItemDraft,
  milestone: number | undefined,
): CreateIssueBody {
  const out: CreateIssueBody = {
    title: draft.title,
    body: bodyFor({
      description: draft.description,
      marker: draft.marker,
      metadata: draft.metadata,
    }),
    labels: [...draft.labels],
    assignees: logins(draft.assignees),
  };
  if (milestone !== undefined) out.milestone = milestone;
  return out;
}

interface PatchIssueBody {
  title?: string;
  body?: string;
  labels?: string[];
  assignees?: string[];
  milestone?: number | null;
  state?: "open" | "closed";
  state_reason?: string;
}

/** The `PATCH` body for the fields set (body and milestone are resolved by the caller). */
export function patchBodyFor(set: Partial<WorkItemFields>): PatchIssueBody {
  const out: PatchIssueBody = {};
  if (set.title !== undefined) out.title = set.title;
  if (set.labels !== undefined) out.labels = [...set.labels];
  if (set.assignees !== undefined) out.assignees = logins(set.assignees);
  if (set.status !== undefined) {
    const s = stateFor(set.status);
    out.state = s.state;
    if (s.state === "closed") out.state_reason = s.state_reason;
    else out.state_reason = "reopened";
  }
  return out;
}
