import { describe, expect, it } from "vitest";
import { countActions, groupItems, isUnchanged } from "./group.js";
import type { ReportItem } from "./types.js";

function item(over: Partial<ReportItem> & Pick<ReportItem, "kind" | "title">): ReportItem {
  return { action: "update", changes: [], conflicts: [], comments: 0, timeEntries: 0, ...over };
}

describe("groupItems", () => {
  it("puts tasks under their story, in order of first appearance, whichever comes first", () => {
    const items = [
      item({ kind: "task", title: "T1", storyTitle: "S1" }),
      item({ kind: "story", title: "S2" }),
      item({ kind: "story", title: "S1" }),
      item({ kind: "task", title: "T2", storyTitle: "S2" }),
      item({ kind: "task", title: "Loose" }),
    ];
    const { groups } = groupItems(items);
    expect(
      groups.map((g) => [g.story?.title ?? g.storyTitle ?? "-", g.tasks.map((t) => t.title)]),
    ).toEqual([
      ["S1", ["T1"]],
      ["S2", ["T2"]],
      ["-", ["Loose"]],
    ]);
  });

  it("keeps the story's title when the story itself has nothing to report", () => {
    const items = [
      item({ kind: "story", title: "S", action: "skip", reason: "unchanged" }),
      item({ kind: "task", title: "T", storyTitle: "S", action: "create" }),
    ];
    const { groups, unchanged } = groupItems(items);
    expect(unchanged).toBe(1);
    expect(groups).toEqual([{ storyTitle: "S", tasks: [items[1]] }]);
    expect(groupItems(items, true).groups[0]?.story).toBe(items[0]);
  });

  it("counts only in-step skips as unchanged", () => {
    expect(isUnchanged(item({ kind: "story", title: "a", action: "skip", reason: "echo" }))).toBe(
      true,
    );
    expect(
      isUnchanged(item({ kind: "story", title: "a", action: "skip", reason: "parent-missing" })),
    ).toBe(false);
    expect(isUnchanged(item({ kind: "story", title: "a" }))).toBe(false);
  });
});

describe("countActions", () => {
  it("counts every action, zeros included", () => {
    expect(countActions([item({ kind: "story", title: "a" })])).toEqual({
      create: 0,
      update: 1,
      adopt: 0,
      delete: 0,
      conflict: 0,
      failed: 0,
      skip: 0,
    });
  });
});
