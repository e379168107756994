import { describe, expect, it } from "vitest";
import { linkedNotRead } from "./not-read.js";
import type { LinkView, Plan } from "./plan/plan-types.js";

const EMPTY = { fields: {}, comments: [], timeEntries: {} } as unknown as LinkView["baseTinypm"];
const link = (kind: "story" | "task", tinypmId: string, targetId: string): LinkView => ({
  kind,
  tinypmId,
  targetId,
  origin: "tinypm",
  baseTinypm: EMPTY,
  baseTarget: EMPTY,
  syncedAt: "2026-01-01T00:00:00.000Z",
});

describe("linkedNotRead", () => {
  it("counts the links no action names, by either side's id and by kind", () => {
    const links = [
      link("story", "1", "10"),
      link("task", "1", "11"), // tinyPM task #1 is not story #1
      link("story", "2", "12"),
      link("story", "3", "13"),
    ];
    const plan: Plan = {
      job: "demo",
      targetSystem: "github",
      actions: [
        { type: "skip", kind: "story", title: "a", tinypmId: "1", reason: "unchanged" },
        { type: "skip", kind: "story", title: "b", targetId: "12", reason: "unchanged" },
      ],
    };
    expect(linkedNotRead(links, plan)).toBe(2);
    expect(linkedNotRead(links, { ...plan, actions: [] })).toBe(4);
    expect(linkedNotRead([], plan)).toBe(0);
  });
});
