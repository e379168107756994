/** Shared fixtures for the mapping tests: the default mappings, users, and sample items. */
import { fileURLToPath } from "node:url";
import type { Comment, UserRef, WorkItem, WorkItemDraft } from "../../../src/core/model.js";
import { compileMapping, type CompiledMapping } from "../../../src/mapping/compile.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { matchUsers } from "../../../src/mapping/user-match.js";
import type { UnmappedPolicy } from "../../../src/mapping/users.js";

export const MAPPINGS_DIR = fileURLToPath(new URL("../../../mappings/", import.meta.url));
export const mappingPath = (name: string): string => `${MAPPINGS_DIR}${name}`;

/** tinyPM users, full refs; the last one has no target account. */
export const TINYPM_USERS: readonly UserRef[] = [
  ...Array.from({ length: 12 }, (_, i) => ({
    id: String(i + 1),
    login: `user${i + 1}`,
    name: `User ${i + 1}`,
    email: `user${i + 1}@example.com`,
  })),
  { id: "99", login: "ghost", name: "Ghost User", email: "ghost@example.com" },
];

/** Target users: GitHub logins `gh-userN`, Jira accountIds `acc-N` (none for `ghost`). */
export function targetUsers(target: "github" | "jira"): UserRef[] {
  return TINYPM_USERS.filter((u) => u.login !== "ghost").map((u, i) =>
    target === "github"
      ? { id: `gh-${u.login ?? ""}`, login: `gh-${u.login ?? ""}`, email: u.email }
      : { id: `acc-${i + 1}`, name: u.name, email: u.email },
  );
}

/** A default mapping compiled with users matched by email. */
export function defaultMapping(
  target: "github" | "jira",
  policy: UnmappedPolicy = "skip",
): CompiledMapping {
  const { table } = matchUsers({
    tinypmUsers: TINYPM_USERS,
    targetUsers: targetUsers(target),
    policy,
  });
  return compileMapping(loadMapping(mappingPath(`${target}.yaml`)), { users: table });
}

export const user = (n: number): UserRef => TINYPM_USERS[n - 1]!;

/** A complete tinyPM story. */
export function sampleStory(overrides: Partial<WorkItem> = {}): WorkItem {
  return {
    system: "tinypm",
    kind: "story",
    id: "7",
    title: "Checkout page",
    description: "As @ana I want #12 fixed",
    status: "PENDING",
    priority: "MUST_HAVE",
    estimate: 3,
    iteration: { id: "2", name: "Sprint 2" },
    assignees: [user(1)],
    acceptingUser: user(2),
    labels: ["ui", "web shop"],
    color: "YELLOW",
    position: 4,
    comments: [],
    timeEntries: [],
    metadata: {},
    ...overrides,
  };
}

/** A complete tinyPM task. */
export function sampleTask(overrides: Partial<WorkItem> = {}): WorkItem {
  return sampleStory({
    kind: "task",
    id: "31",
    parentId: "7",
    title: "Build form",
    status: "IN PROGRESS",
    priority: undefined,
    acceptingUser: undefined,
    iteration: undefined,
    color: undefined,
    position: undefined,
    labels: [],
    assignees: [user(1), user(3)],
    startedAt: "2012-02-04T21:17:47.765",
    completedAt: undefined,
    estimate: 0.5,
    ...overrides,
  });
}

/** What the target adapter would read back after writing a draft (comments and worklogs too). */
export function readBack(
  m: CompiledMapping,
  draft: WorkItemDraft,
  source: WorkItem,
  edits: Partial<WorkItem> = {},
): WorkItem {
  const comments: Comment[] = source.comments.map((c, i) => ({
    ...m.commentToTarget(c),
    id: String(i + 1),
    createdAt: "2030-01-01T00:00:00Z",
  }));
  return {
    ...draft,
    system: m.target,
    id: "T1",
    comments,
    timeEntries: m.timeEntriesToTarget(source),
    metadata: draft.metadata ?? {},
    ...edits,
  };
}

/** Drops `undefined` properties (a draft's shape, as the tinyPM adapter would see it). */
export function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
