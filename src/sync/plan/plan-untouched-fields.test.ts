import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { UserRef, WorkItem, WorkItemFieldName } from "../../core/model.js";
import { compileMapping, type CompiledMapping } from "../../mapping/compile.js";
import { loadMapping } from "../../mapping/load.js";
import { planJob } from "./plan.js";
import type { UpdateAction } from "./plan-types.js";
import { targetSnapshot, tinypmSnapshot } from "./snapshot.js";

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
  const g = copyOf(m, before, target);
  const plan = planJob({
    job: { name: "j", direction: "both", conflicts: "manual", onDelete: "close" },
    mapping: m,
    targetSystem: target,
    tinypm: { items: [story(EDITS[field])], complete: true },
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
