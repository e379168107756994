import { describe, expect, it } from "vitest";
import type { KnownVersion } from "./context.js";
import {
  isKnown,
  issueDigest,
  rememberAnswer,
  rememberComment,
  rememberIssue,
  rememberTouch,
} from "./known-versions.js";
import type { RawIssue } from "./schema.js";

function issue(over: Partial<RawIssue> = {}): RawIssue {
  return {
    id: 1_000_001,
    number: 1,
    title: "Story",
    body: "Text\n\n<!-- hidden block -->",
    state: "open",
    state_reason: null,
    labels: [{ name: "bug" }, { name: "area:ui" }],
    assignees: [{ login: "bob" }, { login: "alice" }],
    milestone: { number: 1, title: "Sprint 1" },
    comments: 0,
    created_at: "2026-03-02T10:00:00Z",
    updated_at: "2026-03-02T10:00:00Z",
    ...over,
  };
}

function knowing(...issues: RawIssue[]): { known: Map<number, KnownVersion> } {
  const ctx = { known: new Map<number, KnownVersion>() };
  for (const i of issues) rememberIssue(ctx, i);
  return ctx;
}

describe("issueDigest", () => {
  it("is the same for one version however GitHub spells it", () => {
    const d = issueDigest(issue());
    expect(issueDigest(issue({ labels: ["area:ui", "bug"] }))).toBe(d);
    expect(issueDigest(issue({ assignees: [{ login: "alice" }, { login: "bob" }] }))).toBe(d);
    expect(issueDigest(issue({ body: "Text\r\n\r\n<!-- hidden block -->" }))).toBe(d);
    expect(issueDigest(issue({ body: null }))).toBe(issueDigest(issue({ body: "" })));
    expect(issueDigest(issue({ assignees: null }))).toBe(issueDigest(issue({ assignees: [] })));
  });

  it("leaves out what changes without a person's edit of the issue", () => {
    const d = issueDigest(issue());
    const moved = issue({ updated_at: "2026-03-02T10:00:01Z", comments: 3 });
    expect(issueDigest({ ...moved, reactions: { total_count: 2 } } as RawIssue)).toBe(d);
  });

  it.each<[string, Partial<RawIssue>]>([
    ["title", { title: "Renamed" }],
    ["body", { body: "Text" }],
    ["state", { state: "closed", state_reason: "completed" }],
    ["state reason", { state_reason: "reopened" }],
    ["labels", { labels: [{ name: "bug" }] }],
    ["assignees", { assignees: [{ login: "alice" }] }],
    ["milestone", { milestone: null }],
    ["milestone's title", { milestone: { number: 1, title: "Sprint 2" } }],
    ["parent", { parent_issue_url: "https://api.github.com/repos/o/r/issues/7" }],
  ])("changes with the %s", (_field, over) => {
    expect(issueDigest(issue(over))).not.toBe(issueDigest(issue()));
  });

  it("is a short string", () => {
    expect(issueDigest(issue({ body: "x".repeat(65_536) }))).toMatch(/^[\w-]{42}$/);
  });
});

describe("isKnown", () => {
  it("holds a listed version with the known stamp, count and content", () => {
    const { known } = knowing(issue());
    expect(isKnown(known, issue({ labels: ["area:ui", "bug"] }))).toBe(true);
    expect(isKnown(known, issue({ title: "Renamed" }))).toBe(false);
    expect(isKnown(known, issue({ comments: 1 }))).toBe(false);
    expect(isKnown(known, issue({ updated_at: "2026-03-02T10:00:01Z" }))).toBe(false);
    expect(isKnown(known, issue({ number: 2 }))).toBe(false);
  });

  it("keeps the content through the adapter's own comment and sub-issue link", () => {
    const ctx = knowing(issue());
    rememberComment(ctx, 1, "2026-03-02T10:00:01Z");
    rememberTouch(ctx, 1, "2026-03-02T10:00:02Z", undefined, "7");
    const now = {
      updated_at: "2026-03-02T10:00:02Z",
      comments: 1,
      parent_issue_url: "https://api.github.com/repos/o/r/issues/7",
    };
    expect(isKnown(ctx.known, issue(now))).toBe(true);
    expect(isKnown(ctx.known, issue({ ...now, title: "Renamed in that second" }))).toBe(false);
  });

  it("tells a person's move of a task to another parent in the second of the link", () => {
    const ctx = knowing(issue());
    rememberTouch(ctx, 1, "2026-03-02T10:00:02Z", undefined, "7");
    const moved = {
      updated_at: "2026-03-02T10:00:02Z",
      parent_issue_url: "https://api.github.com/repos/o/r/issues/8",
    };
    expect(isKnown(ctx.known, issue(moved))).toBe(false);
    expect(isKnown(ctx.known, issue({ ...moved, parent_issue_url: null }))).toBe(false);
  });
});

describe("rememberAnswer", () => {
  const later = { updated_at: "2026-03-02T10:00:01Z" };

  it("takes the parts a write set from its answer", () => {
    const ctx = knowing(issue());
    const closed = issue({ ...later, state: "closed", state_reason: "completed" });
    rememberAnswer(ctx, closed, { state: "closed", state_reason: "completed" });
    expect(isKnown(ctx.known, closed)).toBe(true);
  });

  it("forgets an issue whose answer shows a part the write did not set changed", () => {
    const ctx = knowing(issue());
    rememberAnswer(ctx, issue({ ...later, state: "closed", title: "A person's" }), {
      state: "closed",
    });
    expect(ctx.known.has(1)).toBe(false);
  });

  it("forgets an issue whose answer counts a comment the adapter did not post", () => {
    const ctx = knowing(issue());
    rememberAnswer(ctx, issue({ ...later, comments: 1 })); // a sub-issue link's parent
    expect(ctx.known.has(1)).toBe(false);
  });

  it("keeps an issue the adapter's write changed nothing else of, and leaves unknown ones", () => {
    const ctx = knowing(issue());
    rememberAnswer(ctx, issue(later));
    expect(isKnown(ctx.known, issue(later))).toBe(true);
    rememberAnswer(ctx, issue({ ...later, number: 2 }), { title: "Other" });
    expect(ctx.known.has(2)).toBe(false);
  });
});
