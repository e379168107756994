import { describe, expect, it } from "vitest";
import { nextTransition, type WorkflowEdge } from "./workflow.js";

const e = (id: string, to: string): WorkflowEdge => ({ id, name: `to ${to}`, to });
const FULL = new Map<string, readonly WorkflowEdge[]>([
  ["To Do", [e("11", "In Progress"), e("41", "Rejected")]],
  ["In Progress", [e("21", "Testing"), e("51", "To Do"), e("41", "Rejected")]],
  ["Testing", [e("31", "Done"), e("61", "In Progress"), e("41", "Rejected")]],
  ["Done", [e("71", "To Do")]],
  ["Rejected", [e("71", "To Do")]],
]);

describe("nextTransition", () => {
  it("says arrived when already in the wanted status (case-insensitive)", () => {
    expect(nextTransition({ graph: FULL, current: "Done", target: "done" })).toEqual({
      kind: "arrived",
    });
  });

  it("takes the first hop of the shortest path three transitions away", () => {
    const step = nextTransition({ graph: FULL, current: "To Do", target: "Done" });
    expect(step).toEqual({ kind: "step", edge: e("11", "In Progress"), exploring: false });
  });

  it("takes a direct transition when there is one", () => {
    const step = nextTransition({ graph: FULL, current: "Testing", target: "Done" });
    expect(step).toMatchObject({ kind: "step", edge: { id: "31" } });
  });

  it("explores towards the nearest unknown status when no known path exists", () => {
    const partial = new Map([["To Do", [e("11", "In Progress"), e("41", "Rejected")]]]);
    const step = nextTransition({ graph: partial, current: "To Do", target: "Done" });
    expect(step).toEqual({ kind: "step", edge: e("11", "In Progress"), exploring: true });
  });

  it("reports the reachable statuses when the wanted one cannot be reached", () => {
    const step = nextTransition({ graph: FULL, current: "To Do", target: "Archived" });
    expect(step.kind).toBe("unreachable");
    expect(step.kind === "unreachable" && [...step.reachable].sort()).toEqual([
      "Done",
      "In Progress",
      "Rejected",
      "Testing",
    ]);
  });
});
