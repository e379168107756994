import { describe, expect, it } from "vitest";
import { dueOnFor, endDateOf } from "./due-date.js";

describe("milestone due dates", () => {
  it("reads the day of GitHub's midnight-Pacific due_on in summer and winter", () => {
    expect(endDateOf("2030-06-30T07:00:00Z")).toBe("2030-06-30");
    expect(endDateOf("2030-01-15T08:00:00Z")).toBe("2030-01-15");
    // An old UTC-midnight value is still the previous evening in California.
    expect(endDateOf("2030-06-30T00:00:00Z")).toBe("2030-06-29");
  });

  it("sends an instant that falls on the intended day in Pacific time, either side of DST", () => {
    for (const day of ["2030-03-09", "2030-03-10", "2030-03-11", "2030-11-02", "2030-11-03"]) {
      expect(endDateOf(dueOnFor(day))).toBe(day);
    }
  });
});
