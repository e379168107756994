import { beforeEach, describe, expect, it } from "vitest";
import type { Comment, WorkItem } from "../../core/model.js";
import {
  forgetIssue,
  isKnownVersion,
  noteAdded,
  rememberItem,
  type KnownVersions,
} from "./known-versions.js";
import { KnownTable } from "./known-table.js";

/** The adapter's table, and a Map: the functions here give the same answers over either. */
const TABLES: readonly [string, () => KnownVersions][] = [
  ["the adapter's table", () => new KnownTable()],
  ["a Map", () => new Map()],
];
let makeKnown: () => KnownVersions = () => new KnownTable();

const issue = (more: Partial<WorkItem> = {}): WorkItem => ({
  system: "jira",
  kind: "story",
  id: "WID-1",
  title: "Story",
  status: "To Do",
  assignees: [],
  labels: [],
  comments: [],
  timeEntries: [],
  metadata: {},
  updatedAt: "2026-03-02T10:00:00.000+0000",
  ...more,
});

const ours: Comment = {
  id: "10",
  author: { id: "acc-alice" },
  createdAt: "2026-03-02T10:00:05.000+0000",
  body: "Ours",
};

function knowing(item: WorkItem): KnownVersions {
  const known: KnownVersions = makeKnown();
  rememberItem(known, item);
  return known;
}

describe.each(TABLES)("the issue versions the engine holds, in %s", (_, make) => {
  beforeEach(() => {
    makeKnown = make;
  });

  it("knows an issue handed over, whatever its change time, and no other content", () => {
    const known = knowing(issue());
    expect(isKnownVersion(known, issue({ updatedAt: "2026-03-02T10:09:00.000+0000" }))).toBe(true);
    expect(isKnownVersion(known, issue({ title: "Renamed" }))).toBe(false);
    expect(isKnownVersion(known, issue({ id: "WID-2" }))).toBe(false);
  });

  it("keeps the newer of two reads (search may answer with an older one)", () => {
    const known = knowing(issue({ title: "New", updatedAt: "2026-03-02T10:05:00.000+0000" }));
    rememberItem(known, issue({ title: "Old" }));
    expect(isKnownVersion(known, issue({ title: "New" }))).toBe(true);
    expect(isKnownVersion(known, issue({ title: "Old" }))).toBe(false);
  });

  it("knows the version plus a comment the adapter added, as its answer gave it", () => {
    const known = knowing(issue());
    noteAdded(known, "WID-1", { comment: ours });
    expect(isKnownVersion(known, issue({ comments: [ours] }))).toBe(true);
    expect(isKnownVersion(known, issue())).toBe(false); // the comment was deleted
    expect(isKnownVersion(known, issue({ comments: [{ ...ours, body: "Edited" }] }))).toBe(false);
    expect(isKnownVersion(known, issue({ comments: [ours], title: "Renamed" }))).toBe(false);
    const theirs = { ...ours, id: "11", body: "A person's" };
    expect(isKnownVersion(known, issue({ comments: [ours, theirs] }))).toBe(false);
  });

  it("knows a worklog added the same way", () => {
    const known = knowing(issue());
    const worklog = { id: "7", user: { id: "acc-alice" }, date: "2026-03-01", hours: 1 };
    noteAdded(known, "WID-1", { worklog });
    expect(isKnownVersion(known, issue({ timeEntries: [worklog] }))).toBe(true);
    expect(isKnownVersion(known, issue({ timeEntries: [{ ...worklog, hours: 2 }] }))).toBe(false);
  });

  it("knows several entries added to one issue, and one noted twice once", () => {
    const known = knowing(issue());
    const worklog = { id: "7", user: { id: "acc-alice" }, date: "2026-03-01", hours: 1 };
    const second = { ...ours, id: "12", body: "Second" };
    noteAdded(known, "WID-1", { comment: ours });
    noteAdded(known, "WID-1", { worklog });
    noteAdded(known, "WID-1", { comment: second });
    noteAdded(known, "WID-1", { comment: second }); // an answer read twice
    const all = { comments: [ours, second], timeEntries: [worklog] };
    expect(isKnownVersion(known, issue(all))).toBe(true);
    expect(isKnownVersion(known, issue({ ...all, comments: [ours] }))).toBe(false);
    expect(isKnownVersion(known, issue({ ...all, timeEntries: [] }))).toBe(false);
    // A comment whose id is a worklog's is not that worklog.
    const lookalike = { ...ours, id: "7", body: "Not the worklog" };
    expect(isKnownVersion(known, issue({ ...all, comments: [ours, second, lookalike] }))).toBe(
      false,
    );
  });

  it("leaves unknown an issue not known before the comment, or written since", () => {
    const known: KnownVersions = makeKnown();
    noteAdded(known, "WID-1", { comment: ours });
    expect(isKnownVersion(known, issue({ comments: [ours] }))).toBe(false);
    rememberItem(known, issue());
    forgetIssue(known, "WID-1");
    expect(isKnownVersion(known, issue())).toBe(false);
  });

  it("does not tell apart an issue without a change time", () => {
    const known = knowing(issue({ updatedAt: undefined }));
    expect(isKnownVersion(known, issue({ updatedAt: undefined }))).toBe(false);
  });
});
