import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import {
  advanceFeed,
  decodeCheckpoint,
  encodeCheckpoint,
  querySince,
  searchedAt,
} from "./checkpoint.js";
import { jqlString, markerJql, updatedSinceJql } from "./jql.js";

const item = (id: string, updatedAt: string, title = id): WorkItem => ({
  system: "jira",
  kind: "story",
  id,
  title,
  status: "To Do",
  assignees: [],
  labels: [],
  comments: [],
  timeEntries: [],
  metadata: {},
  updatedAt,
});

describe("feed", () => {
  it("drops issues already delivered with the same content, keeps changed ones", () => {
    const first = advanceFeed({
      state: undefined,
      items: [
        item("WID-1", "2026-01-01T10:00:00.000+0000"),
        item("WID-2", "2026-01-01T10:00:30.000+0000"),
      ],
      overlapMs: 60_000,
    });
    expect(first.fresh.map((i) => i.id)).toEqual(["WID-1", "WID-2"]);
    const cp = encodeCheckpoint(first.state);
    const state = decodeCheckpoint(cp);
    expect(querySince(state, 60_000)).toBe(Date.parse("2026-01-01T09:59:30.000Z"));
    const second = advanceFeed({
      state,
      items: [
        item("WID-1", "2026-01-01T10:00:00.000+0000"),
        item("WID-2", "2026-01-01T10:00:30.000+0000", "renamed"),
      ],
      overlapMs: 60_000,
    });
    expect(second.fresh.map((i) => i.title)).toEqual(["renamed"]);
  });

  it("forgets hashes that fall out of the overlap window", () => {
    const a = advanceFeed({
      state: undefined,
      items: [item("WID-1", "2026-01-01T10:00:00.000Z")],
      overlapMs: 60_000,
    });
    const b = advanceFeed({
      state: a.state,
      items: [item("WID-2", "2026-01-01T11:00:00.000Z")],
      overlapMs: 60_000,
    });
    expect([...b.state.seen.keys()]).toEqual(["WID-2"]);
  });

  it("starts the window at the later of the newest issue and the last complete search", () => {
    const newest = Date.parse("2026-01-01T10:00:30.000Z");
    const { state } = advanceFeed({
      state: undefined,
      items: [item("WID-1", "2026-01-01T10:00:30.000Z")],
      overlapMs: 60_000,
    });
    expect(querySince(state, 60_000)).toBe(newest - 60_000);
    // A search that began before the newest issue leaves the window on the issue.
    expect(querySince(searchedAt(state, newest - 5_000), 60_000)).toBe(newest - 60_000);
    // One that began two minutes after it moves the window past it.
    const later = searchedAt(state, newest + 120_000);
    expect(querySince(later, 60_000)).toBe(newest + 60_000);
    // Never back: an older search start is no news, and a page keeps the state's start.
    expect(searchedAt(later, newest)).toBe(later);
    expect(searchedAt(later, undefined)).toBe(later);
    const next = advanceFeed({ state: later, items: [], overlapMs: 60_000 }).state;
    expect(next.readMs).toBe(newest + 120_000);
    // Kept across the checkpoint, and absent from an older version's.
    expect(decodeCheckpoint(encodeCheckpoint(later))?.readMs).toBe(newest + 120_000);
    expect(decodeCheckpoint({ updatedMs: newest, seen: "" })?.readMs).toBeUndefined();
    expect(() => decodeCheckpoint({ updatedMs: newest, seen: "", readMs: "soon" })).toThrow(
      /checkpoint/,
    );
  });

  it("rejects a checkpoint it did not write", () => {
    expect(() => decodeCheckpoint({ cursor: "x" })).toThrow(/checkpoint/);
  });
});

describe("jql", () => {
  it("quotes strings", () => {
    expect(jqlString('a "b" \\c')).toBe('"a \\"b\\" \\\\c"');
  });

  it("asks for updates since an epoch-ms watermark, oldest first", () => {
    expect(updatedSinceJql("WID", 1700000000123.4)).toBe(
      'project = "WID" AND updated >= 1700000000123 ORDER BY updated ASC, key ASC',
    );
  });

  it("finds a marker through the entity property", () => {
    expect(
      markerJql("WID", "tinypm-sync", {
        job: "j",
        origin: "tinypm",
        originKind: "story",
        originId: "7",
      }),
    ).toBe(
      'project = "WID" AND issue.property[tinypm-sync].originId = "7" AND issue.property[tinypm-sync].originKind = "story" AND issue.property[tinypm-sync].origin = "tinypm" AND issue.property[tinypm-sync].job = "j"',
    );
  });
});
