import { describe, expect, it } from "vitest";
import { statusesFromEvents } from "./status-history.js";

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
