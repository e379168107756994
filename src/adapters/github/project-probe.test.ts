import { describe, expect, it } from "vitest";
import type { BoardSpec } from "../../core/board.js";
import { boardFieldVerdicts } from "./project-probe.js";

const SPEC: BoardSpec = {
  fields: { status: "Status", iteration: "Sprint", estimate: "Points", priority: "Priority" },
  statusOptions: [
    { name: "Todo", color: "GRAY" },
    { name: "Done", color: "GREEN" },
    { name: "Won't do", color: "RED" },
  ],
  priorityOptions: [{ name: "Must have", color: "RED" }],
  closed: { Done: "completed" },
  openStatus: "Todo",
};

describe("boardFieldVerdicts", () => {
  it("names each field the mapping needs: present, options to add, will be created", () => {
    const v = boardFieldVerdicts(
      [
        {
          name: "status",
          dataType: "SINGLE_SELECT",
          options: [{ name: "todo" }, { name: "Done" }],
        },
        { name: "Sprint", dataType: "ITERATION" },
      ],
      SPEC,
    );
    expect(v).toEqual([
      { text: "Status present, options to add: Won't do", wrongType: false },
      { text: "Sprint present", wrongType: false },
      { text: "Points will be created", wrongType: false },
      { text: "Priority will be created", wrongType: false },
    ]);
  });

  it("a field of the name but another type is in the way", () => {
    const v = boardFieldVerdicts([{ name: "Points", dataType: "TEXT" }], SPEC);
    expect(v[2]).toEqual({ text: "Points is TEXT, needs NUMBER", wrongType: true });
  });
});
