import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../core/model.js";
import type { LinkRecord } from "../../state/store.js";
import { linkView } from "./links.js";

const base = (over: Record<string, JsonValue> = {}): JsonValue => ({
  fields: { title: "Login page", status: "PENDING", labels: ["ui", "web"], estimate: 3 },
  comments: ["2026-10-21 10:55|481991ea4beca11c"],
  timeEntries: { "ann|2026-10-21": 2 },
  ...over,
});

const record = (tinypm: JsonValue, target: JsonValue): LinkRecord => ({
  job: "j",
  kind: "story",
  tinypmId: "1",
  targetSystem: "github",
  targetId: "7",
  origin: "tinypm",
  base: { tinypm, target, tinypmHash: "h1", targetHash: "h2" },
  updatedAt: "2026-11-29T09:00:00.000Z",
});

describe("linkView", () => {
  it("holds the content both bases share once, the target's own change time kept", () => {
    const view = linkView(record(base(), base({ at: "2026-11-29T08:59:59Z" })));
    expect(view.baseTarget.fields).toBe(view.baseTinypm.fields);
    expect(view.baseTarget.comments).toBe(view.baseTinypm.comments);
    expect(view.baseTarget.timeEntries).toBe(view.baseTinypm.timeEntries);
    expect(view.baseTarget.at).toBe("2026-11-29T08:59:59Z");
    expect(view.baseTinypm.at).toBeUndefined();
  });

  it("keeps each side's own values where the bases differ", () => {
    const target = base({
      fields: { title: "Login page!", status: "PENDING", labels: ["ui", "web"], estimate: 3 },
      comments: [],
      deleted: true,
    });
    const view = linkView(record(base(), target));
    expect(view.baseTinypm.fields.title).toBe("Login page");
    expect(view.baseTarget.fields.title).toBe("Login page!");
    expect(view.baseTarget.comments).toEqual([]);
    expect(view.baseTinypm.comments).toEqual(["2026-10-21 10:55|481991ea4beca11c"]);
    // The part that is equal is still shared; the deletion mark stays the target's.
    expect(view.baseTarget.timeEntries).toBe(view.baseTinypm.timeEntries);
    expect(view.baseTarget.deleted).toBe(true);
    expect(view.baseTinypm.deleted).toBe(false);
  });

  it("shares fields equal in content whatever their key order", () => {
    const view = linkView(
      record(
        base({ fields: { title: "A", estimate: 1 } }),
        base({ fields: { estimate: 1, title: "A" } }),
      ),
    );
    expect(view.baseTarget.fields).toBe(view.baseTinypm.fields);
  });
});
