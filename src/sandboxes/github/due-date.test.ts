import { describe, expect, it } from "vitest";
import { normaliseDueOn, pacificDay, pacificMidnight } from "./due-date.js";

const iso = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z");

describe("GitHub due_on normalisation", () => {
  it("stores midnight Pacific of the Pacific day, as GitHub does", () => {
    expect(iso(normaliseDueOn(Date.parse("2030-06-30T00:00:00Z")))).toBe("2030-06-29T07:00:00Z");
    expect(iso(normaliseDueOn(Date.parse("2030-06-30T12:00:00Z")))).toBe("2030-06-30T07:00:00Z");
    expect(iso(normaliseDueOn(Date.parse("2030-01-15T12:00:00Z")))).toBe("2030-01-15T08:00:00Z");
  });

  it("follows daylight saving on the switch days", () => {
    // 2030-03-10 02:00 PST → PDT; 2030-11-03 02:00 PDT → PST.
    expect(iso(pacificMidnight("2030-03-10"))).toBe("2030-03-10T08:00:00Z");
    expect(iso(pacificMidnight("2030-03-11"))).toBe("2030-03-11T07:00:00Z");
    expect(iso(pacificMidnight("2030-11-03"))).toBe("2030-11-03T07:00:00Z");
    expect(iso(pacificMidnight("2030-11-04"))).toBe("2030-11-04T08:00:00Z");
    expect(pacificDay(Date.parse("2030-11-03T07:59:59Z"))).toBe("2030-11-03");
    expect(pacificDay(Date.parse("2030-11-03T06:59:59Z"))).toBe("2030-11-02");
  });
});
