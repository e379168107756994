import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { UserRef, WorkItem, WorkItemFieldName } from "../../core/model.js";
import { compileMapping, type CompiledMapping } from "../../mapping/compile.js";
import { loadMapping } from "../../mapping/load.js";
import { planActions } from "./plan.js";
import type { UpdateAction } from "./plan-types.js";
import { normalizeField, targetSnapshot, tinypmSnapshot } from "./snapshot.js";

const ann: UserRef = { id: "1", login: "ann", name: "Ann Smith" };
const bob: UserRef = { id: "2", login: "bob", name: "Bob Jones" };
const users = {
  policy: "skip" as const,
  toTarget: new Map([
    ["ann", { id: "ann-id", login: "ann" }],
    ["bob", { id: "bob-id", login: "bob" }],
  ]),
  toTinypm: new Map([
    ["ann-id", ann],
    ["bob-id", bob],
    ["ann", ann],
    ["bob", bob],
  ]),
  tinypmUsers: [ann, bob],
};

function compiled(target: "github" | "jira"): CompiledMapping {
  const file = fileURLToPath(new URL(`../../../mappings/${target}.yaml`, import.meta.url));
  return compileMapping(loadMapping(file), { users });
}

/** A person's rich description, as they wrote it on the target (live mentions, code). */
const PERSON_TEXT = [
  "Ping @alice and @bob about #1.",
  "```python\n@retry\ndef go():\n    pass\n```",
].join("\n\n");

function story(over: Partial<WorkItem> = {}): WorkItem {
  return {
    system: "tinypm",
    kind: "story",
    id: "1",
    title: "Story 1",
    description: PERSON_TEXT,
    status: "PENDING",
    priority: "SHOULD_HAVE",
    estimate: 3,
    iteration: { id: "5", name: "Sprint 1" },
    assignees: [ann],
    acceptingUser: ann,
    labels: ["ui"],
    color: "WHITE",
    position: 1,
    startedAt: "2024-01-01T10:00:00",
    completedAt: "2024-01-02T10:00:00",
    comments: [],
    timeEntries: [],
    metadata: {},
    ...over,
  };
}

/** The target copy holding the person's text as written (no joiners), synced with `t`. */
function copyOf(m: CompiledMapping, t: WorkItem, target: "github" | "jira"): WorkItem {
  const draft = m.toTarget(t);
  return {
    ...draft,
    system: target,
    id: "101",
    description: PERSON_TEXT,
    metadata: draft.metadata ?? {},
    comments: [],
    timeEntries: [],
    marker: { job: "j", origin: "tinypm", originKind: "story", originId: "1" },
  };
}

/** The one edit per field, made in tinyPM only. */
const EDITS: Record<WorkItemFieldName, Partial<WorkItem>> = {
  title: { title: "Renamed in tinyPM" },
  description: { description: `${PERSON_TEXT}\n\nOne more line.` },
  status: { status: "ACCEPTED" },
  priority: { priority: "MUST_HAVE" },
  estimate: { estimate: 5 },
  iteration: { iteration: { id: "6", name: "Sprint 2" } },
  assignees: { assignees: [bob] },
  acceptingUser: { acceptingUser: bob },
  labels: { labels: ["ui", "api"] },
  color: { color: "RED" },
  position: { position: 7 },
  startedAt: { startedAt: "2024-03-01T10:00:00" },
  completedAt: { completedAt: "2024-03-02T10:00:00" },
};

/** The target fields each tinyPM field reaches under the default mappings. */
const REACHES: Record<"github" | "jira", Record<WorkItemFieldName, string[]>> = {
  github: {
    title: ["title"],
    description: ["description"],
    status: ["labels", "status"],
    priority: ["labels"],
    estimate: ["labels"],
    iteration: ["iteration"],
    assignees: ["assignees"],
    acceptingUser: [],
    labels: ["labels"],
    color: ["labels"],
    position: [],
    startedAt: [],
    completedAt: [],
  },
  jira: {
    title: ["title"],
    description: ["description"],
    status: ["status"],
    priority: ["priority"],
    estimate: ["estimate"],
    iteration: ["iteration"],
    assignees: ["assignees"],
    acceptingUser: [],
    labels: ["labels"],
    color: ["labels"],
    position: [],
    startedAt: [],
    completedAt: [],
  },
};

function planEdit(target: "github" | "jira", field: WorkItemFieldName): UpdateAction {
  const m = compiled(target);
  const before = story();
  return planPair(target, before, copyOf(m, before, target), story(EDITS[field]));
}

/** The plan for a synced pair (`before` in tinyPM, `g` on the target) once tinyPM holds `after`. */
function planPair(
  target: "github" | "jira",
  before: WorkItem,
  g: WorkItem,
  after: WorkItem,
): UpdateAction {
  const m = compiled(target);
  const plan = planActions({
    job: { name: "j", direction: "both", conflicts: "manual", onDelete: "close" },
    mapping: m,
    targetSystem: target,
    tinypm: { items: [after], complete: true },
    target: { items: [g], complete: true },
    links: [
      {
        kind: "story",
        tinypmId: "1",
        targetId: "101",
        origin: "tinypm",
        baseTinypm: tinypmSnapshot(m, before),
        baseTarget: targetSnapshot(m, g),
        syncedAt: "2024-01-01T00:00:00Z",
      },
    ],
    now: new Date("2024-01-02T00:00:00Z"),
  });
  const action = plan.actions[0];
  if (action?.type !== "update") throw new Error(`expected an update, got ${action?.type}`);
  return action;
}

describe.each(["github", "jira"] as const)("a one-field tinyPM edit on %s", (target) => {
  it("starts from a synced pair: nothing to write", () => {
    const m = compiled(target);
    const t = story();
    expect(targetSnapshot(m, copyOf(m, t, target)).fields).toEqual(tinypmSnapshot(m, t).fields);
  });

  it.each(Object.keys(EDITS) as WorkItemFieldName[])(
    "%s: writes only the target fields it reaches, never the body otherwise",
    (field) => {
      const action = planEdit(target, field);
      expect(action.changes.map((c) => c.field)).toEqual([field]);
      expect(Object.keys(action.targetSet).sort()).toEqual(REACHES[target][field]);
      expect("description" in action.targetSet).toBe(field === "description");
    },
  );
});

/**
 * Every field whose target value can read back as tinyPM's value while differing from what the
 * mapping writes today. The others cannot differ that way under the default mappings: title,
 * iteration (by name), acceptingUser/position/startedAt/completedAt (metadata, compared as JSON)
 * are written as they read; labels and assignees are compared as sorted sets; a label or login
 * in another letter case, or a Jira label `color-White`, reads as another value (a target edit).
 */
/**
 * A target value that reads back as tinyPM's own value (so nothing changed there since the last
 * sync) but that the mapping would render otherwise today: `field` is the tinyPM field,
 * `targetField` the target field it lives in.
 */
interface Variant {
  readonly field: WorkItemFieldName;
  readonly targetField: WorkItemFieldName;
  readonly tinypm?: Partial<WorkItem>;
  readonly target: (copy: WorkItem) => Partial<WorkItem>;
}

const swapLabel = (copy: WorkItem, from: string, to: string): Partial<WorkItem> => {
  expect(copy.labels).toContain(from);
  return { labels: copy.labels.map((l) => (l === from ? to : l)) };
};

const VARIANTS: Record<"github" | "jira", readonly Variant[]> = {
  github: [
    // The person's live @mentions and #references (today's rendering adds joiners).
    { field: "description", targetField: "description", target: () => ({}) },
    // Closed as duplicate reads as REJECTED; REJECTED is written as closed as not planned.
    {
      field: "status",
      targetField: "status",
      tinypm: { status: "REJECTED" },
      target: () => ({ status: "closed:duplicate" }),
    },
    {
      field: "estimate",
      targetField: "labels",
      target: (c) => swapLabel(c, "estimate: 3", "estimate: 3.0"),
    },
  ],
  jira: [
    {
      field: "description",
      targetField: "description",
      tinypm: { description: "Ping @Ann Smith." },
      target: () => ({ description: "Ping [@Ann Smith](mention:ann-id)." }),
    },
    {
      field: "status",
      targetField: "status",
      target: () => ({ status: "In Progress" }),
    },
    {
      field: "priority",
      targetField: "priority",
      tinypm: { priority: "WONT_HAVE" },
      target: () => ({ priority: "Lowest" }),
    },
  ],
};

describe.each(["github", "jira"] as const)(
  "a field that did not change in tinyPM on %s, held on the target in a form the mapping would not write today",
  (target) => {
    it.each(VARIANTS[target].map((v) => [v.field, v] as const))(
      "%s: an edit of another field leaves it as the target holds it",
      (_field, v) => {
        const m = compiled(target);
        const before = story(v.tinypm);
        const copy = copyOf(m, before, target);
        const g: WorkItem = { ...copy, ...v.target(copy) };
        // The target's value reads back as tinyPM's (nothing changed there)…
        expect(targetSnapshot(m, g).fields[v.field]).toEqual(
          tinypmSnapshot(m, before).fields[v.field],
        );
        // …yet today's rendering of tinyPM's value differs from what the target holds.
        const f = v.targetField;
        expect(normalizeField(f, m.toTarget(before)[f])).not.toEqual(normalizeField(f, g[f]));
        const other = v.field === "title" ? "estimate" : "title";
        const action = planPair(target, before, g, story({ ...v.tinypm, ...EDITS[other] }));
        expect(action.changes.map((c) => c.field)).toEqual([other]);
        expect(Object.keys(action.targetSet)).not.toContain(f);
      },
    );
  },
);
