import type { AdfDocument } from "./adf.js";
import type { Site } from "./site.js";
import type { ChangelogItem } from "./webhook-changelog.js";

export interface CommentRecord {
  readonly id: number;
  readonly authorId: string;
  body: AdfDocument;
  readonly created: number;
  updated: number;
}

export interface WorklogRecord {
  readonly id: number;
  readonly authorId: string;
  started: number;
  timeSpentSeconds: number;
  comment: AdfDocument | undefined;
  readonly created: number;
  updated: number;
}

export interface IssueRecord {
  readonly id: number;
  readonly key: string;
  issueTypeId: string;
  summary: string;
  description: AdfDocument | null;
  labels: string[];
  priorityId: string;
  assigneeId: string | null;
  reporterId: string | null;
  readonly creatorId: string;
  statusId: string;
  statusChangedAt: number;
  /** Each status change, oldest first (a transition that moved the issue). */
  statusChanges: StatusChange[];
  /** Each edit of its fields, oldest first; with `statusChanges`, the issue's changelog. */
  fieldChanges: FieldChange[];
  resolutionId: string | null;
  resolutionDate: number | null;
  parentId: number | null;
  duedate: string | null;
  storyPoints: number | null;
  /** Sprints the issue has been in, oldest first (closed ones stay as history). */
  sprintIds: number[];
  readonly created: number;
  updated: number;
  comments: CommentRecord[];
  worklogs: WorklogRecord[];
  properties: Map<string, unknown>;
}

/** One status change of an issue, by whom and when. */
export interface StatusChange {
  readonly id: number;
  readonly at: number;
  readonly authorId: string;
  readonly from: string;
  readonly to: string;
}

/** One edit of an issue's fields (`PUT /issue/{key}`, an assign, a sprint move): who, when. */
export interface FieldChange {
  readonly id: number;
  readonly at: number;
  readonly authorId: string;
  readonly items: readonly ChangelogItem[];
}

/** The id of an issue's next changelog entry (status changes and edits share one sequence). */
export function nextChangeId(issue: IssueRecord): number {
  const last = Math.max(
    issue.id * 1000,
    issue.statusChanges.at(-1)?.id ?? 0,
    issue.fieldChanges.at(-1)?.id ?? 0,
  );
  return last + 1;
}

export type SprintState = "future" | "active" | "closed";

export interface SprintRecord {
  readonly id: number;
  name: string;
  state: SprintState;
  readonly boardId: number;
  goal: string;
  startDate: number | undefined;
  endDate: number | undefined;
  completeDate: number | undefined;
  readonly createdDate: number;
}

export interface LinkRecord {
  readonly id: number;
  readonly typeId: string;
  /** The issue given as `inwardIssue` when the link was created. */
  readonly inwardId: number;
  readonly outwardId: number;
}

export interface JiraStore {
  readonly site: Site;
  /** Milliseconds, strictly increasing across calls (so `updated` orders writes). */
  now(): number;
  issues(): IssueRecord[];
  /** Finds an issue by key (case-insensitive) or numeric id. */
  findIssue(idOrKey: string): IssueRecord | undefined;
  addIssue(
    fields: Omit<
      IssueRecord,
      "id" | "key" | "created" | "updated" | "statusChangedAt" | "statusChanges" | "fieldChanges"
    >,
  ): IssueRecord;
  deleteIssue(id: number): void;
  children(id: number): IssueRecord[];
  /** Marks an issue as written now (bumps `updated`). */
  touch(issue: IssueRecord): void;
  nextCommentId(): number;
  nextWorklogId(): number;
  sprints(): SprintRecord[];
  findSprint(id: number): SprintRecord | undefined;
  addSprint(fields: Omit<SprintRecord, "id" | "createdDate">): SprintRecord;
  removeSprint(id: number): void;
  links(): LinkRecord[];
  addLink(fields: Omit<LinkRecord, "id">): LinkRecord;
  removeLink(id: number): boolean;
  reset(): void;
}

/** The in-memory state of the sandbox: issues (with comments, worklogs, properties) and sprints. */
export function createStore(site: Site, clock: () => number = Date.now): JiraStore {
  let issues = new Map<number, IssueRecord>();
  let byKey = new Map<string, IssueRecord>();
  let sprints = new Map<number, SprintRecord>();
  let links: LinkRecord[] = [];
  let counters = fresh();
  let last = 0;
  const now = (): number => {
    last = Math.max(clock(), last + 1);
    return last;
  };
  return {
    site,
    now,
    issues: () => [...issues.values()],
    findIssue(idOrKey) {
      if (/^\d+$/.test(idOrKey)) return issues.get(Number(idOrKey));
      return byKey.get(idOrKey.toUpperCase());
    },
    addIssue(fields) {
      const at = now();
      const issue: IssueRecord = {
        ...fields,
        id: ++counters.issue,
        key: `${site.project.key}-${++counters.number}`,
        created: at,
        updated: at,
        statusChangedAt: at,
        statusChanges: [],
        fieldChanges: [],
      };
      issues.set(issue.id, issue);
      byKey.set(issue.key, issue);
      return issue;
    },
    deleteIssue(id) {
      const issue = issues.get(id);
      if (issue === undefined) return;
      issues.delete(id);
      byKey.delete(issue.key);
      links = links.filter((l) => l.inwardId !== id && l.outwardId !== id);
    },
    children: (id) => [...issues.values()].filter((i) => i.parentId === id),
    touch(issue) {
      issue.updated = now();
    },
    nextCommentId: () => ++counters.comment,
    nextWorklogId: () => ++counters.worklog,
    sprints: () => [...sprints.values()],
    findSprint: (id) => sprints.get(id),
    addSprint(fields) {
      const sprint: SprintRecord = { ...fields, id: ++counters.sprint, createdDate: now() };
      sprints.set(sprint.id, sprint);
      return sprint;
    },
    removeSprint(id) {
      sprints.delete(id);
    },
    links: () => [...links],
    addLink(fields) {
      const link: LinkRecord = { ...fields, id: ++counters.link };
      links.push(link);
      return link;
    },
    removeLink(id) {
      const before = links.length;
      links = links.filter((l) => l.id !== id);
      return links.length < before;
    },
    reset() {
      issues = new Map();
      byKey = new Map();
      sprints = new Map();
      links = [];
      counters = fresh();
    },
  };
}

function fresh() {
  return { issue: 10000, number: 0, comment: 10000, worklog: 10000, sprint: 0, link: 10000 };
}
