import type { Clock } from "./clock.js";
import { afterWrite, createConsistency, type ListingConsistency } from "./consistency.js";
import { createEventLog, recordIssueEvents, type EventLog } from "./events.js";
import type { GithubSandboxUser } from "./users.js";

/**
 * The sandbox's data: one repository with its collaborators, labels, milestones, issues,
 * comments and sub-issue links. Ids are global per kind and deliberately far from issue numbers
 * (sub-issue endpoints take the child's `id`, not its `number`).
 */

export interface UserRecord {
  readonly login: string;
  readonly id: number;
  readonly type: "User" | "Organization";
  /** The profile's display name, if set. */
  readonly name?: string | undefined;
  /** The profile's public email, if the user made one public. */
  readonly publicEmail?: string | undefined;
}

export interface LabelRecord {
  readonly id: number;
  name: string;
  color: string;
  description: string | null;
  readonly isDefault: boolean;
  updatedAt: number;
}

export interface MilestoneRecord {
  readonly id: number;
  readonly number: number;
  title: string;
  description: string | null;
  state: "open" | "closed";
  dueOn: number | null;
  readonly creator: string;
  readonly createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface CommentRecord {
  readonly id: number;
  readonly issueNumber: number;
  body: string;
  readonly user: string;
  readonly createdAt: number;
  updatedAt: number;
}

export type StateReason = "completed" | "not_planned" | "duplicate" | "reopened";

export interface IssueRecord {
  readonly id: number;
  readonly number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  stateReason: StateReason | null;
  /** Label ids, in the order they were added. */
  labels: number[];
  /** Assignee logins (at most 10). */
  assignees: string[];
  /** Milestone number. */
  milestone: number | null;
  readonly user: string;
  readonly createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  closedBy: string | null;
  comments: number;
  locked: boolean;
  lockReason: "off-topic" | "too heated" | "resolved" | "spam" | null;
  /** Parent issue id. */
  parentId: number | null;
  /** Child issue ids, in priority order. */
  subIssues: number[];
}

/** GitHub's default labels of a new repository. */
const DEFAULT_LABELS: readonly (readonly [string, string, string])[] = [
  ["bug", "d73a4a", "Something isn't working"],
  ["documentation", "0075ca", "Improvements or additions to documentation"],
  ["duplicate", "cfd3d7", "This issue or pull request already exists"],
  ["enhancement", "a2eeef", "New feature or request"],
  ["good first issue", "7057ff", "Good for newcomers"],
  ["help wanted", "008672", "Extra attention is needed"],
  ["invalid", "e4e669", "This doesn't seem right"],
  ["question", "d876e3", "Further information is requested"],
  ["wontfix", "ffffff", "This will not be worked on"],
];

export const MAX_ASSIGNEES = 10;
export const MAX_SUB_ISSUES = 100;
export const MAX_NESTING = 8;
export const MAX_BODY = 65_536;

interface StoreOptions {
  readonly owner: string;
  readonly repo: string;
  readonly users: readonly GithubSandboxUser[];
  readonly readerLogin: string;
  readonly clock: Clock;
  /** Listings lag writes by this much sandbox time (0: strongly consistent). */
  readonly listingLagMs?: number;
}

export interface Store {
  readonly owner: UserRecord;
  readonly repoName: string;
  readonly repoId: number;
  readonly repoCreatedAt: number;
  readonly clock: Clock;
  /** `http://host:port`, set once the server listens; every URL in a body starts with it. */
  origin: string;
  readonly users: ReadonlyMap<string, UserRecord>;
  /** Logins that may be assigned (collaborators). */
  readonly collaborators: readonly string[];
  labels: LabelRecord[];
  milestones: MilestoneRecord[];
  issues: IssueRecord[];
  /**
   * Numbers of issues no longer in the repository: `deleted` (GitHub answers 410) or
   * `transferred` to a repository the caller cannot see (404). Never given out again.
   */
  removed: Map<number, "deleted" | "transferred">;
  comments: CommentRecord[];
  /** Issue events (labeled, assigned, closed, …) for the events and timeline endpoints. */
  eventLog: EventLog;
  /** How soon listings see writes (`--consistency eventual`). */
  consistency: ListingConsistency;
  /** The login of the caller of the request being answered (the actor of its events). */
  actor: string;
  /** Bumped by every write (and import, and reset): cached GET answers of older versions are stale. */
  version: number;
  nextId(kind: "issue" | "comment" | "label" | "milestone"): number;
  reset(): void;
}

const ID_BASE = { issue: 1_000_000, comment: 2_000_000, label: 3_000_000, milestone: 4_000_000 };

export function createStore(opts: StoreOptions): Store {
  const users = new Map<string, UserRecord>();
  const owner: UserRecord = { login: opts.owner, id: 9_000_001, type: "Organization" };
  users.set(owner.login.toLowerCase(), owner);
  [...opts.users, { login: opts.readerLogin }].forEach((u, i) => {
    users.set(u.login.toLowerCase(), {
      login: u.login,
      id: 5_000_001 + i,
      type: "User",
      name: u.name,
      publicEmail: u.publicEmail,
    });
  });
  const seq = { ...ID_BASE };
  const store: Store = {
    owner,
    repoName: opts.repo,
    repoId: 1000,
    repoCreatedAt: opts.clock.now(),
    clock: opts.clock,
    origin: "http://127.0.0.1",
    users,
    collaborators: opts.users.filter((u) => u.collaborator !== false).map((u) => u.login),
    labels: [],
    milestones: [],
    issues: [],
    removed: new Map(),
    comments: [],
    eventLog: createEventLog(),
    consistency: createConsistency(opts.listingLagMs ?? 0),
    actor: opts.users[0]?.login ?? opts.owner,
    version: 0,
    nextId: (kind) => ++seq[kind],
    reset() {
      store.version++;
      Object.assign(seq, ID_BASE);
      store.milestones = [];
      store.issues = [];
      store.removed = new Map();
      store.comments = [];
      store.eventLog = createEventLog();
      store.consistency = createConsistency(store.consistency.lagMs);
      const now = opts.clock.now();
      store.labels = DEFAULT_LABELS.map(([name, color, description]) => ({
        id: store.nextId("label"),
        name,
        color,
        description,
        isDefault: true,
        updatedAt: now,
      }));
    },
  };
  store.reset();
  return store;
}

export function findUser(store: Store, login: string): UserRecord | undefined {
  return store.users.get(login.toLowerCase());
}

/** The canonical spelling of a collaborator's login, or undefined. */
export function collaboratorLogin(store: Store, login: string): string | undefined {
  return store.collaborators.find((c) => c.toLowerCase() === login.toLowerCase());
}

export function findLabel(store: Store, name: string): LabelRecord | undefined {
  const lower = name.toLowerCase();
  return store.labels.find((l) => l.name.toLowerCase() === lower);
}

export function findIssue(store: Store, number: number): IssueRecord | undefined {
  return store.issues.find((i) => i.number === number);
}

export function findIssueById(store: Store, id: number): IssueRecord | undefined {
  return store.issues.find((i) => i.id === id);
}

export function findMilestone(store: Store, number: number): MilestoneRecord | undefined {
  return store.milestones.find((m) => m.number === number);
}

/** Issue (and pull request) numbers share one sequence per repository. */
export function nextIssueNumber(store: Store): number {
  const taken = store.issues.reduce((max, i) => Math.max(max, i.number), 0);
  return Math.max(taken, ...store.removed.keys()) + 1;
}

/**
 * Takes an issue out of the repository, as a person deleting it (`deleted`) or transferring it
 * to a repository the caller cannot see (`transferred`) does: its comments go with it, its
 * parent no longer lists it, and its number is never given out again. False when there is none.
 */
export function removeIssue(store: Store, number: number, how: "deleted" | "transferred"): boolean {
  const issue = findIssue(store, number);
  if (issue === undefined) return false;
  store.issues = store.issues.filter((i) => i !== issue);
  store.comments = store.comments.filter((c) => c.issueNumber !== number);
  for (const other of store.issues)
    if (other.subIssues.includes(issue.id))
      other.subIssues = other.subIssues.filter((id) => id !== issue.id);
  store.removed.set(number, how);
  store.version++;
  return true;
}

/**
 * Marks an issue changed: `updated_at` becomes the current second, as on GitHub — several changes
 * in one second share it (ties are normal, so a change feed must not key on it alone) — and the
 * change is recorded as issue events.
 */
export function touch(store: Store, issue: IssueRecord): void {
  issue.updatedAt = Math.floor(store.clock.now() / 1000) * 1000;
  recordIssueEvents(store, issue, store.actor);
  afterWrite(store, issue);
}

/** Records a new issue's initial events (labels, assignees, milestone given at creation). */
export function created(store: Store, issue: IssueRecord): void {
  recordIssueEvents(store, issue, issue.user);
  afterWrite(store, issue);
}

/** Returns the label with this name, creating it (colour `ededed`) when the repo lacks it. */
export function ensureLabel(store: Store, name: string): LabelRecord {
  const existing = findLabel(store, name);
  if (existing) return existing;
  const label: LabelRecord = {
    id: store.nextId("label"),
    name,
    color: "ededed",
    description: null,
    isDefault: false,
    updatedAt: store.clock.now(),
  };
  store.labels.push(label);
  return label;
}
