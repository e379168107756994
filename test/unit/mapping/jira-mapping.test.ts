/** Every field of the default Jira mapping, both ways, including edits made on Jira. */
import { describe, expect, it } from "vitest";
import type { WorkItem, WorkItemDraft } from "../../../src/core/model.js";
import { defaultMapping, readBack, sampleStory, sampleTask, user } from "./fixtures.js";

const m = defaultMapping("jira");
const account = (n: number) => ({
  id: `acc-${n}`,
  name: `User ${n}`,
  email: `user${n}@example.com`,
});

type Row = [name: string, item: WorkItem, pick: (d: WorkItemDraft) => unknown, expected: unknown];
const meta = (key: string) => (d: WorkItemDraft) => d.metadata?.[key];

const toJira: Row[] = [
  ["name → summary", sampleStory(), (d) => d.title, "Checkout page"],
  [
    "description → Markdown, mentions untouched",
    sampleStory(),
    (d) => d.description,
    "As @ana I want #12 fixed",
  ],
  ["PENDING → To Do", sampleStory({ status: "PENDING" }), (d) => d.status, "To Do"],
  ["ACCEPTED → Done", sampleStory({ status: "ACCEPTED" }), (d) => d.status, "Done"],
  ["REJECTED → Rejected", sampleStory({ status: "REJECTED" }), (d) => d.status, "Rejected"],
  ["MUST_HAVE → Highest", sampleStory({ priority: "MUST_HAVE" }), (d) => d.priority, "Highest"],
  ["SHOULD_HAVE → High", sampleStory({ priority: "SHOULD_HAVE" }), (d) => d.priority, "High"],
  ["COULD_HAVE → Medium", sampleStory({ priority: "COULD_HAVE" }), (d) => d.priority, "Medium"],
  ["WONT_HAVE → Low", sampleStory({ priority: "WONT_HAVE" }), (d) => d.priority, "Low"],
  ["estimatedEffort → story points", sampleStory({ estimate: 8 }), (d) => d.estimate, 8],
  ["iteration → sprint by name", sampleStory(), (d) => d.iteration, { name: "Sprint 2" }],
  [
    "tags → labels without spaces, colour → a label",
    sampleStory(),
    (d) => d.labels,
    ["ui", "web_shop", "color-yellow"],
  ],
  ["owner → assignee", sampleStory(), (d) => d.assignees, [account(1)]],
  ["acceptingUser → metadata", sampleStory(), meta("acceptingUser"), user(2)],
  ["position → metadata", sampleStory(), meta("position"), 4],
  ["a task stays a task under its story", sampleTask(), (d) => [d.kind, d.parentId], ["task", "7"]],
  ["TO DO → To Do", sampleTask({ status: "TO DO" }), (d) => d.status, "To Do"],
  ["IN PROGRESS → In Progress", sampleTask(), (d) => d.status, "In Progress"],
  ["TESTING → Testing", sampleTask({ status: "TESTING" }), (d) => d.status, "Testing"],
  ["COMPLETED → Done", sampleTask({ status: "COMPLETED" }), (d) => d.status, "Done"],
  [
    "2.5 IN_PROGRESS → In Progress",
    sampleTask({ status: "IN_PROGRESS" }),
    (d) => d.status,
    "In Progress",
  ],
  ["a custom status passes as is", sampleTask({ status: "REVIEW" }), (d) => d.status, "REVIEW"],
  ["several assignees → the first", sampleTask(), (d) => d.assignees, [account(1)]],
  [
    "several assignees → all in metadata",
    sampleTask(),
    (d) => (d.metadata?.original as Record<string, unknown>).assignees,
    [user(1), user(3)],
  ],
  ["task estimate → estimate", sampleTask(), (d) => d.estimate, 0.5],
  ["startedAt → metadata", sampleTask(), meta("startedAt"), "2012-02-04T21:17:47.765"],
];

describe("the default Jira mapping, tinyPM → Jira", () => {
  it.each(toJira)("%s", (_name, item, pick, expected) => {
    expect(pick(m.toTarget(item))).toEqual(expected);
  });
});

type EditRow = [
  name: string,
  item: WorkItem,
  edits: Partial<WorkItem>,
  field: keyof WorkItem,
  expected: unknown,
];

const edits: EditRow[] = [
  ["a new summary", sampleStory(), { title: "Renamed" }, "title", "Renamed"],
  ["a new priority", sampleStory(), { priority: "Low" }, "priority", "WONT_HAVE"],
  ["priority Lowest", sampleStory(), { priority: "Lowest" }, "priority", "WONT_HAVE"],
  ["new story points", sampleStory(), { estimate: 13 }, "estimate", 13],
  ["a story in progress", sampleStory(), { status: "In Progress" }, "status", "PENDING"],
  ["a story done", sampleStory(), { status: "Done" }, "status", "ACCEPTED"],
  ["a story in an unknown status", sampleStory(), { status: "Blocked" }, "status", "PENDING"],
  ["a task in testing", sampleTask(), { status: "Testing" }, "status", "TESTING"],
  ["a task in review", sampleTask(), { status: "In Review" }, "status", "IN PROGRESS"],
  [
    "another sprint",
    sampleStory(),
    { iteration: { name: "Sprint 3" } },
    "iteration",
    { name: "Sprint 3" },
  ],
  ["another assignee", sampleTask(), { assignees: [account(4)] }, "assignees", [user(4)]],
  ["an unassigned task", sampleTask(), { assignees: [] }, "assignees", []],
  [
    "an added label",
    sampleStory(),
    { labels: ["ui", "web_shop", "color-yellow", "urgent"] },
    "labels",
    ["ui", "web_shop", "urgent"],
  ],
  [
    "a changed colour label",
    sampleStory(),
    { labels: ["ui", "web_shop", "color-green"] },
    "color",
    "GREEN",
  ],
];

describe("the default Jira mapping, Jira → tinyPM", () => {
  it.each(edits)("brings back %s", (_name, item, edit, field, expected) => {
    const back = m.toTinypm(readBack(m, m.toTarget(item), item, edit));
    expect(back[field as keyof WorkItemDraft]).toEqual(expected);
  });

  it("keeps every task assignee while Jira still shows the first", () => {
    const item = sampleTask();
    expect(m.toTinypm(readBack(m, m.toTarget(item), item)).assignees).toEqual([user(1), user(3)]);
  });

  it("keeps tags with spaces while Jira still shows the same labels", () => {
    const item = sampleStory();
    expect(m.toTinypm(readBack(m, m.toTarget(item), item)).labels).toEqual(["ui", "web shop"]);
  });
});

describe("Jira worklogs", () => {
  const entries = [
    { user: user(1), date: "2012-02-05", hours: 1.5, remainingHours: 2 },
    { user: user(2), date: "2012-02-06", hours: 0.25, comment: "review" },
  ];
  const item = sampleTask({ timeEntries: entries });

  it("carry user, date, hours and comment", () => {
    expect(m.timeEntriesToTarget(item)).toEqual([
      { user: account(1), date: "2012-02-05", hours: 1.5 },
      { user: account(2), date: "2012-02-06", hours: 0.25, comment: "review" },
    ]);
  });

  it("come back with the remaining hours from metadata", () => {
    expect(m.timeEntriesToTinypm(readBack(m, m.toTarget(item), item))).toEqual(entries);
  });

  it("edited on Jira come back as edited", () => {
    const read = readBack(m, m.toTarget(item), item, {
      timeEntries: [{ id: "w1", user: account(1), date: "2012-02-05", hours: 3 }],
    });
    expect(m.timeEntriesToTinypm(read)).toEqual([{ user: user(1), date: "2012-02-05", hours: 3 }]);
  });
});

describe("Jira comments and sprints", () => {
  it("comments keep Markdown and name the tinyPM author on the first line", () => {
    const c = {
      author: { name: "Old Timer" },
      createdAt: "2011-01-01T08:00:00.000",
      body: "**bold** @x",
    };
    const out = m.commentToTarget(c);
    expect(out.body.split("\n")[0]).toMatch(
      /^\*\*Old Timer\*\* wrote in tinyPM on 2011-01-01 08:00/,
    );
    expect(out.body.endsWith("\n\n**bold** @x")).toBe(true);
    expect(m.commentToTinypm({ ...out, createdAt: "2030-01-01T00:00:00.000+0000" })).toEqual(c);
  });

  it("sprints carry name, goal, start and end, and give the duration back", () => {
    const it0 = {
      id: "2",
      name: "Sprint 2",
      goal: "Ship",
      startDate: "2012-02-01",
      durationDays: 14,
    };
    const out = m.iterationToTarget(it0);
    expect(out).toEqual({
      name: "Sprint 2",
      goal: "Ship",
      startDate: "2012-02-01",
      durationDays: 14,
      endDate: "2012-02-15",
    });
    const { durationDays: _d, ...sprint } = out;
    expect(m.iterationToTinypm({ id: "99", ...sprint })).toEqual({ ...out });
  });

  it("asks for no labels other than colours", () => {
    expect(m.labels().map((l) => l.name)).toEqual([
      "color-white",
      "color-yellow",
      "color-orange",
      "color-red",
      "color-green",
      "color-blue",
    ]);
  });
});

describe("Jira worklogs written by the API user", () => {
  it("come back with each entry's tinyPM user and remaining hours, matched by date and hours", () => {
    const entries = [
      { user: user(1), date: "2012-02-05", hours: 1.5, remainingHours: 2 },
      { user: user(2), date: "2012-02-06", hours: 0.25 },
    ];
    const item = sampleTask({ timeEntries: entries });
    const bot = { id: "acc-bot", name: "tinypm-sync" };
    const read = readBack(m, m.toTarget(item), item, {
      timeEntries: [
        { id: "w2", user: bot, date: "2012-02-06", hours: 0.25 },
        { id: "w1", user: bot, date: "2012-02-05", hours: 1.5 },
        { id: "w3", user: account(4), date: "2012-02-07", hours: 1 },
      ],
    });
    expect(m.timeEntriesToTinypm(read)).toEqual([
      entries[1],
      entries[0],
      { user: user(4), date: "2012-02-07", hours: 1 },
    ]);
  });
});
