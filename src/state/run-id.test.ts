import { describe, expect, it } from "vitest";
import { newRunId } from "./run-journal.js";

describe("run ids", () => {
  it("sort in the order they were made within one millisecond, and stay unique", () => {
    const at = new Date("2026-11-24T08:45:21.202Z");
    const ids = Array.from({ length: 50 }, () => newRunId(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^20261124T084521Z-00[0-9a-f]{6}$/);
    // A later millisecond starts its count again.
    expect(newRunId(new Date("2026-11-24T08:45:21.203Z"))).toMatch(/Z-00[0-9a-f]{6}$/);
  });
});
