import { describe, expect, it } from "vitest";
import {
  decodeBoardCheckpoint,
  digestOf,
  encodeBoardCheckpoint,
  rewriteMap,
  type BoardIteration,
} from "./project-model.js";

const it1: BoardIteration = {
  id: "aaaa0001",
  title: "Sprint 1",
  startDate: "2026-03-02",
  duration: 14,
};
const it2: BoardIteration = {
  id: "aaaa0002",
  title: "Sprint 2",
  startDate: "2026-03-16",
  duration: 14,
};

describe("board model", () => {
  it("reads a rewrite only when every known iteration id is gone, matching by title and dates", () => {
    const fresh = [
      { ...it1, id: "bbbb0001" },
      { ...it2, id: "bbbb0002" },
      { id: "bbbb0003", title: "Sprint 3", startDate: "2026-03-30", duration: 14 },
    ];
    const map = rewriteMap([it1, it2], fresh);
    expect(map?.get("aaaa0001")?.id).toBe("bbbb0001");
    expect(map?.get("aaaa0002")?.id).toBe("bbbb0002");
    expect(rewriteMap([it1, it2], [it1, { ...it2, id: "cccc" }])).toBeUndefined();
    expect(rewriteMap([], fresh)).toBeUndefined();
  });

  it("digests values by name, so new ids with the same iteration are no change", () => {
    expect(digestOf({ status: "Todo", iteration: it1 })).toBe(
      digestOf({ status: "Todo", iteration: { ...it1, id: "zzzz" } }),
    );
    expect(digestOf({ status: "Todo" })).not.toBe(digestOf({ status: "Done" }));
  });

  it("keeps each item's iteration in the checkpoint through an encode and decode", () => {
    const enc = encodeBoardCheckpoint(
      [
        { itemId: "PVTI_1", number: 4, values: { status: "Todo", iteration: it2 } },
        { itemId: "PVTI_2", number: 7, values: { estimate: 3 } },
      ],
      [it1, it2],
    );
    const dec = decodeBoardCheckpoint(enc.board, enc.iterations);
    expect(dec.iterations).toEqual([it1, it2]);
    expect(dec.items.get(4)).toEqual({
      digest: digestOf({ status: "Todo", iteration: it2 }),
      iteration: 1,
    });
    expect(dec.items.get(7)?.iteration).toBeUndefined();
  });
});
