import { describe, expect, it } from "vitest";
import type { PendingWrite } from "../../state/store.js";
import { settlePendingWrites } from "./pending-writes.js";
import { shownBase, UNKNOWN_BASE, UNKNOWN_BASE_LABEL } from "./unknown-base.js";
import type { LinkView } from "./plan-types.js";
import type { Snapshot } from "./snapshot.js";

const snap = (fields: Snapshot["fields"]): Snapshot => ({ fields, comments: [], timeEntries: {} });

const link = (pendingWrites: PendingWrite[]): LinkView => ({
  kind: "story",
  tinypmId: "1",
  targetId: "7",
  origin: "tinypm",
  baseTinypm: snap({ status: "PENDING", title: "a" }),
  baseTarget: snap({ status: "PENDING", title: "a" }),
  syncedAt: "2026-11-24T10:00:00.000Z",
  pendingWrites,
});

const targetWrite = (updatedAt: string, startedAt = "2026-11-24T10:00:05.400Z"): PendingWrite => ({
  side: "target",
  fields: { status: "ACCEPTED" },
  updatedAt,
  startedAt,
});

describe("settlePendingWrites", () => {
  it("moves both bases for a landed write: its side's to the value written, the other's to its source", () => {
    const l = link([
      {
        side: "tinypm",
        fields: { status: "ACCEPTED" },
        source: { status: "ACCEPTED" },
        startedAt: "x",
      },
    ]);
    // The target was reopened by a person since: that change must show against the base.
    const g = { snapshot: snap({ status: "PENDING", title: "a" }) };
    const out = settlePendingWrites(l, { snapshot: snap({ status: "ACCEPTED", title: "a" }) }, g);
    expect(out.baseTinypm.fields.status).toBe("ACCEPTED");
    expect(out.baseTarget.fields.status).toBe("ACCEPTED");
    // A record made before `source` was kept: the value written stands in for it.
    const old = link([{ side: "target", fields: { title: "b" }, startedAt: "x" }]);
    const settled = settlePendingWrites(
      old,
      { snapshot: snap({ status: "PENDING", title: "a" }) },
      { snapshot: snap({ status: "PENDING", title: "b" }) },
    );
    expect(settled.baseTarget.fields.title).toBe("b");
    expect(settled.baseTinypm.fields.title).toBe("b");
    // A source that had no value: the other side's base has none either.
    const none = link([
      { side: "target", fields: { title: "b" }, source: { title: null }, startedAt: "x" },
    ]);
    const cleared = settlePendingWrites(
      none,
      { snapshot: snap({ status: "PENDING" }) },
      { snapshot: snap({ status: "PENDING", title: "b" }) },
    );
    expect(cleared.baseTinypm.fields).toEqual({ status: "PENDING" });
  });

  it("settles a field written on both sides (a merge) by each side's own write", () => {
    const l = link([
      { side: "tinypm", fields: { title: "m" }, source: { title: "g" }, startedAt: "x" },
      { side: "target", fields: { title: "m" }, source: { title: "t" }, startedAt: "x" },
    ]);
    const out = settlePendingWrites(
      l,
      { snapshot: snap({ status: "PENDING", title: "m" }) },
      { snapshot: snap({ status: "PENDING", title: "m" }) },
    );
    expect(out.baseTinypm.fields.title).toBe("m");
    expect(out.baseTarget.fields.title).toBe("m");
  });

  it("keeps the base of a target write that never landed (item untouched, an earlier second)", () => {
    const l = link([targetWrite("2026-11-24T10:00:01Z")]);
    const g = {
      snapshot: snap({ status: "PENDING", title: "a" }),
      updatedAt: "2026-11-24T10:00:01Z",
    };
    const out = settlePendingWrites(l, { snapshot: snap({ status: "ACCEPTED", title: "a" }) }, g);
    expect(out.baseTarget.fields).toEqual(l.baseTarget.fields);
    expect(out.baseTinypm.fields).toEqual(l.baseTinypm.fields);
  });

  it("makes the base unknown on both sides when the side may have been reverted", () => {
    const moved = {
      snapshot: snap({ status: "PENDING", title: "a" }),
      updatedAt: "2026-11-24T10:00:09Z",
    };
    const t = { snapshot: snap({ status: "ACCEPTED", title: "a" }) };
    const touched = settlePendingWrites(link([targetWrite("2026-11-24T10:00:01Z")]), t, moved);
    expect(touched.baseTinypm.fields.status).toEqual(UNKNOWN_BASE);
    expect(touched.baseTarget.fields.status).toEqual(UNKNOWN_BASE);
    expect(touched.baseTarget.fields.title).toBe("a");
    // Read in the second the write started: a write and a revert could share the change time.
    const same = { ...moved, updatedAt: "2026-11-24T10:00:05Z" };
    const w = targetWrite("2026-11-24T10:00:05Z");
    expect(settlePendingWrites(link([w]), t, same).baseTarget.fields.status).toEqual(UNKNOWN_BASE);
    // A change time past the write's start says the start was not on the item's clock: the
    // write may have landed in the item's second, so nothing tells it from a revert.
    const ahead = { ...moved, updatedAt: "2026-11-24T10:00:07Z" };
    const early = targetWrite("2026-11-24T10:00:07Z");
    expect(settlePendingWrites(link([early]), t, ahead).baseTarget.fields.status).toEqual(
      UNKNOWN_BASE,
    );
    // tinyPM keeps no change times: a tinyPM write not found there is always unknown.
    const tw: PendingWrite = { side: "tinypm", fields: { title: "b" }, startedAt: "x" };
    const out = settlePendingWrites(
      link([tw]),
      { snapshot: snap({ status: "PENDING", title: "a" }) },
      undefined,
    );
    expect(out.baseTinypm.fields.title).toEqual(UNKNOWN_BASE);
  });

  it("settles a cleared field, leaves a side not read alone, and shows the unknown base as words", () => {
    const cleared: PendingWrite = { side: "tinypm", fields: { title: null }, startedAt: "x" };
    const out = settlePendingWrites(
      link([cleared]),
      { snapshot: snap({ status: "PENDING" }) },
      undefined,
    );
    expect(out.baseTinypm.fields).toEqual({ status: "PENDING" });
    const notRead = settlePendingWrites(
      link([targetWrite("z")]),
      { snapshot: snap({}) },
      undefined,
    );
    expect(notRead.baseTarget).toEqual(link([]).baseTarget);
    expect(shownBase(UNKNOWN_BASE)).toBe(UNKNOWN_BASE_LABEL);
    expect(shownBase("PENDING")).toBe("PENDING");
  });
});
