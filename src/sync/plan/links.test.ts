import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../core/model.js";
import type { LinkRecord } from "../../state/store.js";
import { BaselessLink, baseDeleted, baseTitle, linkView } from "./links.js";

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

describe("BaselessLink", () => {
  it("keeps the ids, the recorded deletions, the title and tinyPM's digest, not the bases", () => {
    const gone = new BaselessLink(record(base(), base({ deleted: true })));
    expect(gone).toMatchObject({ kind: "story", tinypmId: "1", targetId: "7", tinypmHash: "h1" });
    expect([baseDeleted(gone, "tinypm"), baseDeleted(gone, "target")]).toEqual([false, true]);
    expect(baseTitle(gone)).toBe("Login page");
    expect(() => gone.baseTarget).toThrow(
      "internal: the target base of the story link 1 ↔ 7 was read from a link held without its bases",
    );
    // The same answers as from the link with its bases.
    const full = linkView(record(base(), base({ deleted: true })));
    expect([baseDeleted(full, "tinypm"), baseDeleted(full, "target")]).toEqual([false, true]);
    expect(baseTitle(full, "target")).toBe("Login page");
  });
});
