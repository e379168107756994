import { describe, expect, it } from "vitest";
import type { ScanSection } from "../../core/tracker.js";
import {
  decideTiers,
  decodeTierState,
  encodeTierState,
  nextTierState,
  undoneTierState,
} from "./tiers.js";

const section = (key: string, signature: string, closed = true): ScanSection => ({
  key,
  name: key,
  closed,
  signature,
  stories: 3,
});
const sections = [section("open", "o", false), section("closed:1", "a"), section("closed:2", "b")];
const stored = { runsSinceFull: 0, signatures: { "closed:1": "a", "closed:2": "b" } };

describe("decideTiers", () => {
  it("reads everything on the first run, when forced, and when the full read is due", () => {
    expect(decideTiers({ sections, stored: undefined, fullScanEvery: 12 })).toMatchObject({
      complete: true,
      fullReason: "first",
      read: ["open", "closed:1", "closed:2"],
    });
    expect(decideTiers({ sections, stored, fullScanEvery: 12, force: "forced" }).complete).toBe(
      true,
    );
    const due = decideTiers({
      sections,
      stored: { ...stored, runsSinceFull: 11 },
      fullScanEvery: 12,
    });
    expect([due.complete, due.fullReason]).toEqual([true, "due"]);
    expect(decideTiers({ sections, stored, fullScanEvery: 1 }).complete).toBe(true);
  });

  it("reads the open section and only the closed ones whose story list changed or is new", () => {
    const now = [section("open", "o2", false), section("closed:1", "a"), section("closed:2", "B")];
    const d = decideTiers({ sections: now, stored, fullScanEvery: 12 });
    expect(d).toEqual({
      complete: false,
      read: ["open", "closed:2"],
      reasons: { open: "open", "closed:1": "skipped", "closed:2": "changed" },
    });
    const added = [...now, section("closed:3", "c")];
    expect(decideTiers({ sections: added, stored, fullScanEvery: 12 }).reasons["closed:3"]).toBe(
      "new",
    );
  });

  it("counts a read that happened to cover every section as complete", () => {
    const d = decideTiers({
      sections: [section("open", "o", false), section("closed:1", "changed")],
      stored,
      fullScanEvery: 12,
    });
    expect([d.complete, d.fullReason]).toEqual([true, "all-changed"]);
  });

  it("has no tiers without closed iterations: everything is read", () => {
    const d = decideTiers({ sections: [section("open", "o", false)], stored, fullScanEvery: 12 });
    expect([d.complete, d.fullReason]).toEqual([true, "no-tiers"]);
  });
});

describe("nextTierState", () => {
  it("restarts the count after a complete read and keeps every closed signature", () => {
    const d = decideTiers({ sections, stored: undefined, fullScanEvery: 12 });
    expect(nextTierState(sections, undefined, d)).toEqual(stored);
  });

  it("counts partial reads, updates the sections read, keeps the others, drops vanished ones", () => {
    const now = [section("open", "o", false), section("closed:2", "B")];
    const before = {
      runsSinceFull: 4,
      signatures: { "closed:1": "a", "closed:2": "b", "closed:9": "z" },
    };
    const withOld = [...now, section("closed:1", "a")];
    const d = decideTiers({ sections: withOld, stored: before, fullScanEvery: 12 });
    expect(nextTierState(withOld, before, d)).toEqual({
      runsSinceFull: 5,
      signatures: { "closed:1": "a", "closed:2": "B" },
    });
  });

  it("after an undo reads everything once, then tiers again", () => {
    const undone = undoneTierState(stored, "run-7");
    expect(undone).toEqual({ ...stored, undone: "run-7" });
    expect(decodeTierState(encodeTierState(undone))).toEqual(undone);
    const d = decideTiers({ sections, stored: undone, fullScanEvery: 12 });
    expect([d.complete, d.fullReason]).toEqual([true, "undone"]);
    // A full read saw what the undo unlinked: the mark goes; a partial one (a webhook's) keeps it.
    expect(nextTierState(sections, undone, d)).toEqual(stored);
    const partial = { complete: false, read: ["open"], reasons: {} };
    expect(nextTierState(sections, undone, partial)).toMatchObject({ undone: "run-7" });
    expect(undoneTierState(undefined, "run-8")).toEqual({
      runsSinceFull: 0,
      signatures: {},
      undone: "run-8",
    });
  });

  it("survives the state store as a flat record; an unreadable record means a full read", () => {
    expect(decodeTierState(encodeTierState(stored))).toEqual(stored);
    expect(decodeTierState({ runsSinceFull: -1 })).toBeUndefined();
    expect(decodeTierState({ runsSinceFull: "3" })).toBeUndefined();
    expect(decodeTierState(undefined)).toBeUndefined();
  });
});
