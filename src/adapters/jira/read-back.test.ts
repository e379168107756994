import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import { answeredAsSent, changedAgain, driftedFields, isChangeOf } from "./read-back.js";

const item = (over: Partial<WorkItem> = {}): WorkItem => ({
  system: "jira",
  kind: "story",
  id: "WID-1",
  title: "Before",
  status: "To Do",
  assignees: [],
  labels: [],
  comments: [],
  timeEntries: [],
  metadata: {},
  ...over,
});
const site = { storyPointsField: "customfield_10016", sprintField: "customfield_10020" };
const since = "2026-11-29T10:00:00.000+0000";
const change = (created: string, fieldId: string, from: string | null, to: string | null) => ({
  created,
  items: [{ field: fieldId, fieldId, fromString: from, toString: to }],
});

describe("driftedFields", () => {
  it("lists the written fields that read back different, as Jira compares them", () => {
    const sent = { title: "Sent", labels: ["b", "a"], status: "done", description: "Text" };
    const read = item({
      title: "A person's",
      labels: ["a", "b"],
      status: "Done",
      description: "Text",
    });
    expect(driftedFields(sent, read)).toEqual(["title"]);
  });

  it("an empty description reads back as none: no drift", () => {
    expect(driftedFields({ description: undefined }, item({ description: undefined }))).toEqual([]);
  });
});

describe("changedAgain", () => {
  const current = item({ title: "Before", updatedAt: since });
  const sent = { title: "Sent" };
  const own = change("2026-11-29T10:00:01.000+0000", "summary", "Before", "Sent");
  const person = change("2026-11-29T10:00:01.013+0000", "summary", "Sent", "A person's");
  const ask = (entries: Parameters<typeof changedAgain>[0]["entries"], over = {}) =>
    changedAgain({ entries, name: "title", since, sent, current, site, ...over });

  it("a change after the update's own one is a person's", () => {
    expect(ask([own, person])).toBe(true);
  });

  it("the update's own change alone: Jira normalised what was sent", () => {
    expect(ask([own])).toBe(false);
  });

  it("a change at or before the issue's change time before the writes does not count", () => {
    const earlier = change(since, "summary", "Older", "Before");
    expect(ask([earlier, own])).toBe(false);
  });

  it("a retry that found its own earlier write makes no change: any change is a person's", () => {
    const retried = item({ title: "Sent", updatedAt: since });
    expect(ask([person], { current: retried })).toBe(true);
  });

  it("changes of other fields do not count", () => {
    expect(ask([own, change("2026-11-29T10:00:02.000+0000", "labels", null, "x")])).toBe(false);
  });

  it("a status changed again when the issue left the status sent", () => {
    const walk = [
      change("2026-11-29T10:00:01.000+0000", "status", "To Do", "In Progress"),
      change("2026-11-29T10:00:01.001+0000", "status", "In Progress", "Done"),
    ];
    const status = { name: "status" as const, sent: { status: "Done" } };
    expect(ask(walk, status)).toBe(false);
    const left = change("2026-11-29T10:00:01.020+0000", "status", "Done", "To Do");
    expect(ask([...walk, left], status)).toBe(true);
  });
});

describe("isChangeOf", () => {
  it("knows Cloud's field ids and Data Center's names for the custom fields", () => {
    expect(isChangeOf("title", { fieldId: "summary" }, site)).toBe(true);
    expect(isChangeOf("assignees", { field: "assignee" }, site)).toBe(true);
    expect(
      isChangeOf("estimate", { fieldId: "customfield_10016", field: "Story Points" }, site),
    ).toBe(true);
    expect(isChangeOf("estimate", { field: "Story Points" }, site)).toBe(true);
    expect(isChangeOf("iteration", { field: "Sprint" }, site)).toBe(true);
    expect(isChangeOf("iteration", { fieldId: "customfield_10020" }, site)).toBe(true);
    expect(isChangeOf("labels", { fieldId: "summary" }, site)).toBe(false);
  });

  it("takes Data Center's items by the names the site gives its points and sprint fields", () => {
    const named = { ...site, storyPointsName: "Estimate", sprintName: "Iteration" };
    expect(isChangeOf("estimate", { field: "Estimate" }, named)).toBe(true);
    expect(isChangeOf("estimate", { field: "Story Points" }, named)).toBe(false);
    expect(isChangeOf("iteration", { field: "Iteration" }, named)).toBe(true);
    expect(isChangeOf("iteration", { field: "Sprint" }, named)).toBe(false);
  });
});

describe("answeredAsSent", () => {
  it("puts back what was sent for the fields changed again, the rest as read back", () => {
    const read = item({ title: "A person's", description: "A person's text", labels: ["p"] });
    const rich = { separator: "\n\n", blocks: [] };
    const out = answeredAsSent(
      read,
      { title: "Sent", description: "Sent text" },
      ["title", "description"],
      rich,
    );
    expect(out).toEqual({
      ...read,
      title: "Sent",
      description: "Sent text",
      richDescription: rich,
    });
  });
});
