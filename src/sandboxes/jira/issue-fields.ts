import { adfProblem, type AdfDocument } from "./adf.js";
import { isRecord } from "./context.js";
import { findAccount, findNamed, type Site } from "./site.js";
import { isAssignable, notAssignableMessage } from "./users.js";
import type { IssueRecord, JiraStore } from "./store.js";

/** The editable part of an issue, built up while a create or edit payload is validated. */
export type IssueDraft = Pick<
  IssueRecord,
  | "issueTypeId"
  | "summary"
  | "description"
  | "labels"
  | "priorityId"
  | "assigneeId"
  | "reporterId"
  | "parentId"
  | "duedate"
  | "storyPoints"
  | "sprintIds"
>;

type Setter = (draft: IssueDraft, value: unknown) => string | undefined;

const NOT_SETTABLE = (field: string): string =>
  `Field '${field}' cannot be set. It is not on the appropriate screen, or unknown.`;

const ADF_REQUIRED =
  "Operation value must be an Atlassian Document (see the Atlassian Document Format)";

function setters(store: JiraStore, mode: "create" | "edit"): Record<string, Setter> {
  const { site } = store;
  const table: Record<string, Setter> = {
    summary: (d, v) => {
      if (typeof v !== "string" || v.trim() === "")
        return "You must specify a summary of the issue.";
      if (v.length > 255) return "Summary must be less than 255 characters.";
      d.summary = v;
      return undefined;
    },
    description: (d, v) => {
      if (v !== null && adfProblem(v) !== undefined) return ADF_REQUIRED;
      d.description = v as AdfDocument | null;
      return undefined;
    },
    labels: (d, v) => {
      if (v === null) v = [];
      if (!Array.isArray(v) || !v.every((l) => typeof l === "string"))
        return "The labels must be an array of strings.";
      const bad = v.find((l) => /\s/.test(l) || l === "" || l.length > 255);
      if (bad !== undefined)
        return `The label '${bad}' contains spaces or is empty or too long, which is invalid.`;
      d.labels = [...new Set(v)];
      return undefined;
    },
    priority: (d, v) => {
      const p = isRecord(v) ? findNamed(site.priorities, v) : undefined;
      if (p === undefined) return "Specify a valid 'id' or 'name' for Priority";
      d.priorityId = p.id;
      return undefined;
    },
    assignee: (d, v) => setAssignee(site, v, (id) => (d.assigneeId = id)),
    reporter: (d, v) => setUser(site, v, (id) => (d.reporterId = id)),
    parent: (d, v) => {
      if (v === null && mode === "edit") {
        d.parentId = null;
        return undefined;
      }
      const ref = isRecord(v) ? (v.key ?? v.id) : undefined;
      const parent =
        typeof ref === "string" || typeof ref === "number"
          ? store.findIssue(String(ref))
          : undefined;
      if (parent === undefined) return "Could not find issue by id or key.";
      d.parentId = parent.id;
      return undefined;
    },
    duedate: (d, v) => {
      if (v !== null && (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(v))) {
        return "Error parsing date string: use yyyy-MM-dd.";
      }
      d.duedate = v;
      return undefined;
    },
    [site.storyPointsFieldId]: (d, v) => {
      if (v !== null && (typeof v !== "number" || !Number.isFinite(v)))
        return "Operation value must be a number";
      d.storyPoints = v;
      return undefined;
    },
    [site.sprintFieldId]: (d, v) => setSprint(store, d, v),
  };
  if (mode === "create") {
    table.issuetype = (d, v) => {
      const t = isRecord(v) ? findNamed(site.issueTypes, v) : undefined;
      if (t === undefined) return "Specify an issue type";
      d.issueTypeId = t.id;
      return undefined;
    };
    table.project = (_d, v) => {
      const ref = isRecord(v) ? (v.key ?? v.id) : undefined;
      const p = site.project;
      return ref === p.key || String(ref) === p.id
        ? undefined
        : "Specify a valid project ID or key";
    };
  }
  return table;
}

function setUser(site: Site, v: unknown, assign: (id: string | null) => void): string | undefined {
  if (v === null) {
    assign(null);
    return undefined;
  }
  const id = isRecord(v) ? (v.accountId ?? v.id) : undefined;
  if (typeof id !== "string" || findAccount(site, id) === undefined) {
    return "Specify a valid value for the user: an object with an existing accountId.";
  }
  assign(id);
  return undefined;
}

/** Like any user field, and the account must be assignable in the project (else Jira's 400). */
function setAssignee(
  site: Site,
  v: unknown,
  assign: (id: string | null) => void,
): string | undefined {
  const id = isRecord(v) ? (v.accountId ?? v.id) : undefined;
  const account = typeof id === "string" ? findAccount(site, id) : undefined;
  if (account !== undefined && !isAssignable(account)) return notAssignableMessage(account);
  return setUser(site, v, assign);
}

function setSprint(store: JiraStore, d: IssueDraft, v: unknown): string | undefined {
  const keep = d.sprintIds.filter((id) => store.findSprint(id)?.state === "closed");
  if (v === null) {
    d.sprintIds = keep;
    return undefined;
  }
  const sprint = typeof v === "number" ? store.findSprint(v) : undefined;
  if (sprint === undefined) return "Number value expected as the Sprint id.";
  if (sprint.state === "closed")
    return `Sprint with id ${sprint.id} is closed: issues cannot be added.`;
  d.sprintIds = [...keep, sprint.id];
  return undefined;
}

/**
 * Applies `fields` and `update` to a draft, collecting Jira-style field errors (`errors.<field>`).
 * `status` and unknown fields are refused; `update` supports set (all) and add/remove (labels).
 */
export function applyFields(opts: {
  store: JiraStore;
  draft: IssueDraft;
  fields: Record<string, unknown>;
  update: Record<string, unknown>;
  mode: "create" | "edit";
}): Record<string, string> {
  const table = setters(opts.store, opts.mode);
  const errors: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.fields)) {
    const setter = table[name];
    const problem = setter === undefined ? NOT_SETTABLE(name) : setter(opts.draft, value);
    if (problem !== undefined) errors[name] = problem;
  }
  for (const [name, ops] of Object.entries(opts.update)) {
    const setter = table[name];
    if (setter === undefined) {
      errors[name] = NOT_SETTABLE(name);
      continue;
    }
    if (name in opts.fields) {
      errors[name] = `Field '${name}' cannot be set using both 'fields' and 'update'.`;
      continue;
    }
    const problem = applyOperations(opts.draft, name, ops, setter);
    if (problem !== undefined) errors[name] = problem;
  }
  return errors;
}

function applyOperations(
  draft: IssueDraft,
  name: string,
  ops: unknown,
  setter: Setter,
): string | undefined {
  if (!Array.isArray(ops)) return `The update of '${name}' must be an array of operations.`;
  for (const op of ops) {
    if (!isRecord(op)) return `The update of '${name}' must be an array of operations.`;
    const [verb, value] = Object.entries(op)[0] ?? ["", undefined];
    let problem: string | undefined;
    if (verb === "set") problem = setter(draft, value);
    else if (name === "labels" && (verb === "add" || verb === "remove"))
      problem = labelOp(draft, verb, value, setter);
    else problem = `Operation '${verb}' is not supported by the '${name}' field.`;
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function labelOp(
  draft: IssueDraft,
  verb: "add" | "remove",
  value: unknown,
  setter: Setter,
): string | undefined {
  if (typeof value !== "string") return "The label must be a string.";
  const next = verb === "add" ? [...draft.labels, value] : draft.labels.filter((l) => l !== value);
  return setter(draft, next);
}

/** Checks the parent/child hierarchy (sub-task under a standard issue, standard under an epic). */
export function hierarchyProblem(
  site: Site,
  store: JiraStore,
  draft: IssueDraft,
): string | undefined {
  const type = site.issueTypes.find((t) => t.id === draft.issueTypeId);
  if (type === undefined) return undefined;
  if (draft.parentId === null) {
    return type.subtask
      ? "A sub-task needs a parent: set fields.parent to {key} or {id}."
      : undefined;
  }
  const parent = store.findIssue(String(draft.parentId));
  const parentType = site.issueTypes.find((t) => t.id === parent?.issueTypeId);
  if (parentType?.hierarchyLevel !== type.hierarchyLevel + 1) {
    return "Given parent work item does not belong to appropriate hierarchy.";
  }
  return undefined;
}
