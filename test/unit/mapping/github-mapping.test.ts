/** Every field of the default GitHub mapping, both ways, including edits made on GitHub. */
import { describe, expect, it } from "vitest";
import type { WorkItem, WorkItemDraft } from "../../../src/core/model.js";
import { compileMapping } from "../../../src/mapping/compile.js";
import { loadMapping } from "../../../src/mapping/load.js";
import {
  defaultMapping,
  mappingPath,
  readBack,
  sampleStory,
  sampleTask,
  user,
} from "./fixtures.js";

const m = defaultMapping("github");
const J = "\u2060";

type Row = [name: string, item: WorkItem, pick: (d: WorkItemDraft) => unknown, expected: unknown];
const labels = (d: WorkItemDraft): readonly string[] => d.labels;
const meta = (key: string) => (d: WorkItemDraft) => d.metadata?.[key];

const toGithub: Row[] = [
  ["name → title", sampleStory(), (d) => d.title, "Checkout page"],
  [
    "description → body with inert mentions",
    sampleStory(),
    (d) => d.description,
    `As @${J}ana I want #${J}12 fixed`,
  ],
  ["PENDING → open", sampleStory({ status: "PENDING" }), (d) => d.status, "open"],
  [
    "ACCEPTED → closed as completed",
    sampleStory({ status: "ACCEPTED" }),
    (d) => d.status,
    "closed:completed",
  ],
  [
    "REJECTED → closed as not planned",
    sampleStory({ status: "REJECTED" }),
    (d) => d.status,
    "closed:not_planned",
  ],
  [
    "acceptance → a label",
    sampleStory({ status: "REJECTED" }),
    labels,
    expect.arrayContaining(["acceptance: rejected"]),
  ],
  [
    "priority → a label",
    sampleStory({ priority: "SHOULD_HAVE" }),
    labels,
    expect.arrayContaining(["priority: should have"]),
  ],
  ["priority stays off the item", sampleStory(), (d) => d.priority, undefined],
  [
    "estimate → a label",
    sampleStory({ estimate: 2.5 }),
    labels,
    expect.arrayContaining(["estimate: 2.5"]),
  ],
  [
    "color → a label",
    sampleStory({ color: "BLUE" }),
    labels,
    expect.arrayContaining(["color: blue"]),
  ],
  ["tags → labels", sampleStory(), labels, expect.arrayContaining(["ui", "web shop"])],
  ["iteration → milestone by name", sampleStory(), (d) => d.iteration, { name: "Sprint 2" }],
  [
    "owner → assignee",
    sampleStory(),
    (d) => d.assignees,
    [{ id: "gh-user1", login: "gh-user1", email: "user1@example.com" }],
  ],
  ["acceptingUser → metadata", sampleStory(), meta("acceptingUser"), user(2)],
  ["position → metadata", sampleStory(), meta("position"), 4],
  ["a task stays a task under its story", sampleTask(), (d) => [d.kind, d.parentId], ["task", "7"]],
  [
    "TO DO → open without label",
    sampleTask({ status: "TO DO" }),
    (d) => [d.status, d.labels],
    ["open", ["estimate: 0.5"]],
  ],
  [
    "IN PROGRESS → open + label",
    sampleTask(),
    (d) => [d.status, d.labels],
    ["open", ["status: in progress", "estimate: 0.5"]],
  ],
  [
    "TESTING → open + label",
    sampleTask({ status: "TESTING" }),
    labels,
    expect.arrayContaining(["status: testing"]),
  ],
  ["COMPLETED → closed", sampleTask({ status: "COMPLETED" }), (d) => d.status, "closed:completed"],
  [
    "2.5 IN_PROGRESS → open + label",
    sampleTask({ status: "IN_PROGRESS" }),
    labels,
    expect.arrayContaining(["status: in progress"]),
  ],
  [
    "a custom status → open + its own label",
    sampleTask({ status: "REVIEW" }),
    (d) => [d.status, d.labels[0]],
    ["open", "status: REVIEW"],
  ],
  [
    "assignedUsers → up to 10 assignees",
    sampleTask({ assignees: Array.from({ length: 12 }, (_, i) => user(i + 1)) }),
    (d) => d.assignees.length,
    10,
  ],
  ["startedAt → metadata", sampleTask(), meta("startedAt"), "2012-02-04T21:17:47.765"],
  [
    "completedAt → metadata",
    sampleTask({ completedAt: "2012-03-01T10:00:00.000" }),
    meta("completedAt"),
    "2012-03-01T10:00:00.000",
  ],
];

describe("the default GitHub mapping, tinyPM → GitHub", () => {
  it.each(toGithub)("%s", (_name, item, pick, expected) => {
    expect(pick(m.toTarget(item))).toEqual(expected);
  });
});

type EditRow = [
  name: string,
  item: WorkItem,
  edits: (d: WorkItemDraft) => Partial<WorkItem>,
  field: keyof WorkItem,
  expected: unknown,
];
const relabel = (d: WorkItemDraft, from: string, to: string | undefined): string[] =>
  d.labels.flatMap((l) => (l === from ? (to === undefined ? [] : [to]) : [l]));

const edits: EditRow[] = [
  ["a new title", sampleStory(), () => ({ title: "Renamed" }), "title", "Renamed"],
  [
    "a new body with a real mention",
    sampleStory(),
    () => ({ description: "cc @bob" }),
    "description",
    "cc @bob",
  ],
  [
    "a changed priority label",
    sampleStory(),
    (d) => ({ labels: relabel(d, "priority: must have", "priority: could have") }),
    "priority",
    "COULD_HAVE",
  ],
  [
    "a removed priority label",
    sampleStory(),
    (d) => ({ labels: relabel(d, "priority: must have", undefined) }),
    "priority",
    undefined,
  ],
  [
    "a closed issue still labelled pending",
    sampleStory(),
    () => ({ status: "closed:completed" }),
    "status",
    "ACCEPTED",
  ],
  ["a duplicate", sampleStory(), () => ({ status: "closed:duplicate" }), "status", "REJECTED"],
  [
    "a reopened issue",
    sampleStory({ status: "ACCEPTED" }),
    (d) => ({ status: "open", labels: relabel(d, "acceptance: accepted", undefined) }),
    "status",
    "PENDING",
  ],
  [
    "a changed estimate label",
    sampleStory(),
    (d) => ({ labels: relabel(d, "estimate: 3", "estimate: 5") }),
    "estimate",
    5,
  ],
  [
    "a changed colour label",
    sampleStory(),
    (d) => ({ labels: relabel(d, "color: yellow", "color: red") }),
    "color",
    "RED",
  ],
  [
    "an added tag",
    sampleStory(),
    (d) => ({ labels: [...d.labels, "new"] }),
    "labels",
    ["ui", "web shop", "new"],
  ],
  [
    "another assignee",
    sampleStory(),
    () => ({ assignees: [{ id: "gh-user5", login: "gh-user5" }] }),
    "assignees",
    [user(5)],
  ],
  [
    "another milestone",
    sampleStory(),
    () => ({ iteration: { name: "Sprint 3" } }),
    "iteration",
    { name: "Sprint 3" },
  ],
  ["a removed milestone", sampleStory(), () => ({ iteration: undefined }), "iteration", undefined],
  [
    "a task labelled testing",
    sampleTask(),
    (d) => ({ labels: relabel(d, "status: in progress", "status: testing") }),
    "status",
    "TESTING",
  ],
  [
    "a closed task",
    sampleTask(),
    (d) => ({ status: "closed:completed", labels: relabel(d, "status: in progress", undefined) }),
    "status",
    "COMPLETED",
  ],
  [
    "a task closed as not planned",
    sampleTask(),
    () => ({ status: "closed:not_planned" }),
    "status",
    "COMPLETED",
  ],
];

describe("the default GitHub mapping, GitHub → tinyPM", () => {
  it.each(edits)("brings back %s", (_name, item, edit, field, expected) => {
    const draft = m.toTarget(item);
    const back = m.toTinypm(readBack(m, draft, item, edit(draft)));
    expect(back[field as keyof WorkItemDraft]).toEqual(expected);
  });

  it("keeps the exact 2.5 status name while GitHub still shows it", () => {
    const item = sampleTask({ status: "IN_PROGRESS" });
    expect(m.toTinypm(readBack(m, m.toTarget(item), item)).status).toBe("IN_PROGRESS");
  });

  it("gives a new milestone its tinyPM iteration id from the iteration table", () => {
    const spec = loadMapping(mappingPath("github.yaml"));
    const withIterations = compileMapping(spec, { iterations: [{ id: "3", name: "Sprint 3" }] });
    const item = sampleStory();
    const read = readBack(m, m.toTarget(item), item, { iteration: { name: "Sprint 3" } });
    expect(withIterations.toTinypm(read).iteration).toEqual({ id: "3", name: "Sprint 3" });
  });
});
