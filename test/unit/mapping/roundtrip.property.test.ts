/**
 * The round-trip property of both default mappings: tinyPM → target → tinyPM gives back the same
 * story or task, comments and time entries, field for field (ids aside), for arbitrary items.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  WORK_ITEM_FIELD_NAMES,
  type WorkItem,
  type WorkItemDraft,
} from "../../../src/core/model.js";
import { fieldsOf } from "../../../src/mapping/compile.js";
import { defaultMapping, defined, readBack, TINYPM_USERS } from "./fixtures.js";

const OWNED_PREFIXES = [
  "acceptance: ",
  "priority: ",
  "estimate: ",
  "color: ",
  "status: ",
  "color-",
];
const TASK_STATUSES = ["TO DO", "IN PROGRESS", "TESTING", "COMPLETED", "PENDING", "IN_PROGRESS"];

/** Unicode text, biased towards what the mappings rewrite (@, #, word joiners, markers). */
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom("@", "#", "\u2060", "a", "1", " ", "\n", "-", "<!--", "-->", "|"),
    maxLength: 30,
  }),
);
const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined });
const timestamp = fc
  .date({ min: new Date("2005-01-01"), max: new Date("2030-12-31"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 23));
const day = timestamp.map((t) => t.slice(0, 10));
const tinypmUser = fc.constantFrom(...TINYPM_USERS);
const amount = fc
  .double({ min: 0, max: 1000, noNaN: true, noDefaultInfinity: true })
  .map((n) => n + 0);
const tag = text.filter((t) => !OWNED_PREFIXES.some((p) => t.startsWith(p)));

const comment = fc.record({
  author: fc.oneof(
    tinypmUser,
    text.map((name) => ({ name })),
  ),
  createdAt: timestamp,
  body: text,
});
const timeEntry = fc.record(
  {
    user: tinypmUser,
    date: day,
    hours: amount,
    remainingHours: amount,
    comment: text,
  },
  { requiredKeys: ["user", "date", "hours"] },
);

function item(kind: "story" | "task"): fc.Arbitrary<WorkItem> {
  const status =
    kind === "story"
      ? fc.constantFrom("PENDING", "ACCEPTED", "REJECTED")
      : fc.oneof(fc.constantFrom(...TASK_STATUSES), text);
  return fc.record({
    system: fc.constant("tinypm" as const),
    kind: fc.constant(kind),
    id: fc.constant("1"),
    parentId: kind === "task" ? fc.constant("9") : fc.constant(undefined),
    title: text,
    description: optional(text),
    status,
    priority: optional(fc.constantFrom("MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE")),
    estimate: optional(amount),
    iteration: optional(fc.record({ id: fc.nat().map(String), name: text })),
    assignees: fc.uniqueArray(tinypmUser, { maxLength: kind === "story" ? 1 : 13 }),
    acceptingUser: optional(tinypmUser),
    labels: fc.uniqueArray(tag, { maxLength: 4 }),
    color: optional(fc.constantFrom("WHITE", "YELLOW", "ORANGE", "RED", "GREEN", "BLUE")),
    position: optional(fc.integer({ min: 0, max: 10_000 })),
    startedAt: optional(timestamp),
    completedAt: optional(timestamp),
    comments: fc.array(comment, { maxLength: 3 }),
    timeEntries: fc.array(timeEntry, { maxLength: 3 }),
    metadata: fc.constant({}),
  });
}

const GITHUB_STATUSES = ["open", "closed:completed", "closed:not_planned", "closed:duplicate"];
const NOT_ON_GITHUB = ["priority", "estimate", "color", "position", "acceptingUser"] as const;

/** What a draft does that its target's canonical flavour does not allow. */
function flavourProblems(target: "github" | "jira", draft: WorkItemDraft): string[] {
  const problems: string[] = [];
  const maxAssignees = target === "github" ? 10 : 1;
  if (draft.assignees.length > maxAssignees) problems.push("too many assignees");
  if (target === "github") {
    if (!GITHUB_STATUSES.includes(draft.status)) problems.push(`status ${draft.status}`);
    for (const f of NOT_ON_GITHUB) if (draft[f] !== undefined) problems.push(`${f} is set`);
  }
  return problems;
}

describe.each(["github", "jira"] as const)("the default %s mapping", (target) => {
  const m = defaultMapping(target);

  it.each(["story", "task"] as const)("covers every canonical field of a %s", (kind) => {
    expect([...m.fieldNames(kind)].sort()).toEqual([...WORK_ITEM_FIELD_NAMES].sort());
  });

  it.each(["story", "task"] as const)("round-trips arbitrary %ss exactly", (kind) => {
    fc.assert(
      fc.property(item(kind), (x) => {
        const draft = m.toTarget(x);
        const read = readBack(m, draft, x);
        expect(defined(m.toTinypm(read))).toEqual({
          kind: x.kind,
          ...(x.parentId === undefined ? {} : { parentId: x.parentId }),
          ...fieldsOf(x),
        });
        expect(read.comments.map((c) => m.commentToTinypm(c))).toEqual(x.comments);
        expect(m.timeEntriesToTinypm(read)).toEqual(x.timeEntries);
      }),
      { numRuns: 150 },
    );
  });

  it.each(["story", "task"] as const)("writes %ss in the target's canonical flavour", (kind) => {
    fc.assert(
      fc.property(item(kind), (x) => {
        const draft = m.toTarget(x);
        expect(draft.kind).toBe(kind);
        expect(draft.parentId).toBe(x.parentId);
        expect(flavourProblems(target, draft)).toEqual([]);
        expect(draft.startedAt).toBeUndefined();
        expect(draft.completedAt).toBeUndefined();
        expect(JSON.parse(JSON.stringify(draft.metadata))).toEqual(draft.metadata);
      }),
      { numRuns: 100 },
    );
  });
});
