import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import { anchorKept, anchorOf, pairAnchors, readAnchor, tinypmFloors } from "./tinypm-anchor.js";

const item = (id: string, title: string, description = ""): WorkItem =>
  ({ kind: "story", id, title, description }) as unknown as WorkItem;
const anchor = (title: string, description: string, floor: number | undefined) => {
  const a = readAnchor(anchorOf({ kind: "story", title, description } as never, floor));
  if (a === undefined) throw new Error("unreadable anchor");
  return a;
};

describe("tinyPM anchors", () => {
  it("floors are the highest numeric id per kind", () => {
    expect(tinypmFloors([item("3", "a"), item("12", "b"), item("x", "c")]).get("story")).toBe(12);
  });

  it("a renamed copy is found by its description, an edited one by its title, never at or below the floor", () => {
    const a = { intentId: 1, anchor: anchor("Alpha", "First words.", 10) };
    const found = (c: WorkItem[]) => pairAnchors([a], c).get(1);
    expect(found([item("11", "Renamed", "First   words.\n")])).toEqual({
      found: item("11", "Renamed", "First   words.\n"),
    });
    expect(found([item("11", "Alpha", "Edited.")])).toMatchObject({ found: { id: "11" } });
    expect(found([item("10", "Alpha", "First words.")])).toEqual({ none: true });
    expect(found([item("11", "Renamed", "Edited.")])).toEqual({ none: true });
  });

  it("an empty description matches nothing by itself", () => {
    const a = { intentId: 1, anchor: anchor("Alpha", "  ", undefined) };
    expect(pairAnchors([a], [item("5", "Other", "")]).get(1)).toEqual({ none: true });
    expect(anchorKept(a.anchor, item("5", "Alpha", ""))).toEqual(new Set(["title", "description"]));
  });

  it("two imports with one title each take their own copy, best match first", () => {
    const a = { intentId: 1, anchor: anchor("Twin", "Words of A.", 10) };
    const b = { intentId: 2, anchor: anchor("Twin", "Words of B.", 10) };
    // A's copy renamed (description only); B's copy intact (both): B first, then A its own.
    const verdicts = pairAnchors(
      [a, b],
      [item("11", "Twin", "Words of B."), item("12", "Twin, renamed", "Words of A.")],
    );
    expect(verdicts.get(1)).toMatchObject({ found: { id: "12" } });
    expect(verdicts.get(2)).toMatchObject({ found: { id: "11" } });
  });

  it("a tie is refused with every candidate, and does not stop another import's unique match", () => {
    const a = { intentId: 1, anchor: anchor("Tie", "Words.", 10) };
    const c = { intentId: 3, anchor: anchor("Alone", "Other words.", 10) };
    const verdicts = pairAnchors(
      [a, c],
      [
        item("11", "Tie, renamed", "Words."),
        item("12", "Tie", "Not the same."),
        item("13", "Alone"),
      ],
    );
    expect(verdicts.get(1)).toMatchObject({ ambiguous: [{ id: "11" }, { id: "12" }] });
    expect(verdicts.get(3)).toMatchObject({ found: { id: "13" } });
  });

  it("an unreadable or missing anchor reads as none (an intent from before anchors)", () => {
    expect(readAnchor(undefined)).toBeUndefined();
    expect(readAnchor("not json")).toBeUndefined();
    expect(readAnchor("{}")).toBeUndefined();
  });
});
