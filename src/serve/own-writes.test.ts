import { describe, expect, it } from "vitest";
import type { SyncEvent } from "../sync/events.js";
import { createOwnWrites } from "./own-writes.js";

const at = (s: string): number => Date.parse(`2026-11-28T12:00:${s}Z`);
const updated = (targetId: string, toSide: "target" | "tinypm"): SyncEvent => ({
  type: "updated",
  kind: "story",
  title: "t",
  tinypmId: "1",
  targetId,
  changes: [{ field: "title", toSide } as never],
});

describe("own writes", () => {
  it("takes a delivery within the run that wrote its item for an echo, and nothing else", () => {
    const w = createOwnWrites();
    w.noteRun("gh", at("10.500"), at("12.000"), [updated("7", "target"), updated("8", "tinypm")]);
    // GitHub stamps to the second: 12:00:10 is within the run that began at 10.5 s.
    w.noteDelivery("gh", new Map([["7", "2026-11-28T12:00:10Z"]]));
    w.noteDelivery("gh", new Map([["8", "2026-11-28T12:00:11Z"]]));
    w.noteDelivery("gh", new Map([["9", "2026-11-28T12:00:11Z"]]));
    expect(w.split("gh", new Set(["7", "8", "9"]))).toEqual({
      echoes: ["7"],
      rest: new Set(["8", "9"]),
    });
    // A later edit of item 7 (the same account or not), and a deletion (no time), run.
    w.noteDelivery("gh", new Map([["7", "2026-11-28T12:00:10Z"]]));
    w.noteDelivery("gh", new Map([["7", "2026-11-28T12:01:00Z"]]));
    expect(w.split("gh", new Set(["7"])).echoes).toEqual([]);
    w.noteDelivery("gh", new Map([["7", ""]]));
    expect(w.split("gh", new Set(["7"])).echoes).toEqual([]);
    // Times are used once; another job's writes are its own.
    expect(w.split("gh", new Set(["7"])).echoes).toEqual([]);
    w.noteDelivery("other", new Map([["7", "2026-11-28T12:00:11Z"]]));
    expect(w.split("other", new Set(["7"])).echoes).toEqual([]);
  });
});
