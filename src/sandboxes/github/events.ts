import type { IssueRecord, Store } from "./store.js";

/**
 * Issue events, as GitHub records them: every change of labels, assignees, milestone, title,
 * state and lock leaves one event per difference (`labeled`, `unlabeled`, `assigned`,
 * `unassigned`, `milestoned`, `demilestoned`, `renamed`, `closed`, `reopened`, `locked`,
 * `unlocked`). Labels, assignees and a milestone given at creation are recorded too.
 */
export interface EventRecord {
  readonly id: number;
  readonly issueNumber: number;
  readonly event: string;
  readonly actor: string;
  readonly createdAt: number;
  readonly label?: { readonly name: string; readonly color: string };
  readonly assignee?: string;
  readonly milestone?: string;
  readonly rename?: { readonly from: string; readonly to: string };
  readonly lockReason?: string | null;
  readonly stateReason?: string | null;
}

/** What the events are diffed against: the issue as last recorded. */
interface Baseline {
  readonly title: string;
  readonly state: "open" | "closed";
  readonly labels: readonly number[];
  readonly assignees: readonly string[];
  readonly milestone: number | null;
  readonly locked: boolean;
}

export interface EventLog {
  events: EventRecord[];
  baselines: Map<number, Baseline>;
  nextId: number;
  /** Timeline order of events (by id) and comments (by comment id): one shared sequence. */
  order: Map<string, number>;
  seq: number;
}

export function createEventLog(): EventLog {
  return { events: [], baselines: new Map(), nextId: 7_000_000, order: new Map(), seq: 0 };
}

/** Places a new comment on the timeline after everything recorded so far. */
export function noteComment(store: Store, commentId: number): void {
  store.eventLog.order.set(`c${commentId}`, ++store.eventLog.seq);
}

/** The timeline position of an event or a comment. */
export function timelineOrder(store: Store, kind: "e" | "c", id: number): number {
  return store.eventLog.order.get(`${kind}${id}`) ?? 0;
}

const EMPTY: Omit<Baseline, "title"> = {
  state: "open",
  labels: [],
  assignees: [],
  milestone: null,
  locked: false,
};

/** Records the events between the issue's last recorded shape and now (a new issue: from empty). */
export function recordIssueEvents(store: Store, issue: IssueRecord, actor: string): void {
  const log = store.eventLog;
  const before = log.baselines.get(issue.id) ?? { ...EMPTY, title: issue.title };
  const at = Math.floor(store.clock.now() / 1000) * 1000;
  const add = (event: string, extra: Partial<EventRecord> = {}): void => {
    const id = ++log.nextId;
    log.order.set(`e${id}`, ++log.seq);
    log.events.push({
      id,
      issueNumber: issue.number,
      event,
      actor,
      createdAt: at,
      ...extra,
    });
  };
  const label = (id: number): NonNullable<EventRecord["label"]> => {
    const l = store.labels.find((x) => x.id === id);
    return { name: l?.name ?? "(deleted)", color: l?.color ?? "ededed" };
  };
  const title = (n: number | null): string =>
    store.milestones.find((m) => m.number === n)?.title ?? "(deleted)";
  if (before.title !== issue.title)
    add("renamed", { rename: { from: before.title, to: issue.title } });
  for (const id of issue.labels)
    if (!before.labels.includes(id)) add("labeled", { label: label(id) });
  for (const id of before.labels)
    if (!issue.labels.includes(id)) add("unlabeled", { label: label(id) });
  for (const a of issue.assignees)
    if (!before.assignees.includes(a)) add("assigned", { assignee: a });
  for (const a of before.assignees)
    if (!issue.assignees.includes(a)) add("unassigned", { assignee: a });
  if (before.milestone !== issue.milestone) {
    if (before.milestone !== null) add("demilestoned", { milestone: title(before.milestone) });
    if (issue.milestone !== null) add("milestoned", { milestone: title(issue.milestone) });
  }
  if (before.state !== issue.state) {
    add(issue.state === "closed" ? "closed" : "reopened", { stateReason: issue.stateReason });
  }
  if (before.locked !== issue.locked) {
    add(issue.locked ? "locked" : "unlocked", { lockReason: issue.lockReason });
  }
  log.baselines.set(issue.id, {
    title: issue.title,
    state: issue.state,
    labels: [...issue.labels],
    assignees: [...issue.assignees],
    milestone: issue.milestone,
    locked: issue.locked,
  });
}
