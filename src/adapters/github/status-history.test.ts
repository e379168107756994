import { describe, expect, it } from "vitest";
import { leftSince, statusesFromEvents } from "./status-history.js";

describe("statusesFromEvents", () => {
  it("created open, closed with its reason, reopened: every status in order", () => {
    const events = [
      { event: "labeled" },
      { event: "closed", state_reason: "not_planned" },
      { event: "reopened", state_reason: "reopened" },
    ];
    expect(statusesFromEvents(events, "open")).toEqual(["open", "closed:not_planned", "open"]);
  });

  it("never closed: only open; a close with no reason reads as completed", () => {
    expect(statusesFromEvents([], "open")).toEqual(["open"]);
    expect(
      statusesFromEvents([{ event: "closed", state_reason: null }], "closed:completed"),
    ).toEqual(["open", "closed:completed"]);
  });

  it("the current status ends the list when the events read so far do not", () => {
    expect(statusesFromEvents([], "closed:duplicate")).toEqual(["open", "closed:duplicate"]);
  });
});

describe("leftSince", () => {
  const since = "2026-11-28T02:33:58.620Z";
  const ev = (event: string, created_at: string, state_reason?: string) => ({
    event,
    created_at,
    ...(state_reason === undefined ? {} : { state_reason }),
  });
  const closed = (at: string) => ev("closed", at, "completed");
  const reopened = (at: string) => ev("reopened", at);

  it("the tool's own close, in the second of the base or stamped after it by a skewed clock, never counts", () => {
    expect(leftSince([closed("2026-11-28T02:33:58Z")], "closed:completed", since)).toBe(false);
    expect(leftSince([closed("2026-11-28T02:34:03Z")], "closed:completed", since)).toBe(false);
    expect(leftSince([ev("labeled", "2026-11-28T02:40:00Z")], "open", since)).toBe(false);
  });

  it("a close undone by the base's own reopen in the same second does not count", () => {
    const own = [closed("2026-11-28T02:33:58Z"), reopened("2026-11-28T02:33:58Z")];
    expect(leftSince(own, "open", since)).toBe(false);
  });

  it("a close and a reopen after the base count", () => {
    const back = [closed("2026-11-28T02:50:00Z"), reopened("2026-11-28T02:51:00Z")];
    expect(leftSince(back, "open", since)).toBe(true);
    const closedBack = [
      closed("2026-11-28T02:00:00Z"),
      reopened("2026-11-28T02:40:00Z"),
      closed("2026-11-28T02:41:00Z"),
    ];
    expect(leftSince(closedBack, "closed:completed", since)).toBe(true);
  });

  it("in the base's second, a change undone in that second does not count; one that lasts does", () => {
    const fast = [
      closed("2026-11-28T02:33:58Z"),
      reopened("2026-11-28T02:33:58Z"),
      closed("2026-11-28T02:33:58Z"),
    ];
    expect(leftSince(fast, "closed:completed", since)).toBe(false);
    const lasts = [
      closed("2026-11-28T02:33:58Z"),
      reopened("2026-11-28T02:33:58Z"),
      closed("2026-11-28T02:33:59Z"),
    ];
    expect(leftSince(lasts, "closed:completed", since)).toBe(true);
  });

  it("changes before the base do not count", () => {
    const before = [closed("2026-11-28T01:00:00Z"), reopened("2026-11-28T01:10:00Z")];
    expect(leftSince(before, "open", since)).toBe(false);
  });

  it("closed with another reason is a change of status", () => {
    const events = [
      closed("2026-11-28T02:00:00Z"),
      reopened("2026-11-28T02:40:00Z"),
      ev("closed", "2026-11-28T02:41:00Z", "not_planned"),
    ];
    expect(leftSince(events, "closed:not_planned", since)).toBe(false);
    expect(leftSince(events, "closed:completed", since)).toBe(true);
  });
});
