import { describe, expect, it } from "vitest";
import { createWriteCost } from "./create-cost.js";

describe("createWriteCost", () => {
  it("creates one by one, with a second call to close and one to attach a task", () => {
    expect(
      createWriteCost([
        { kind: "story", status: "open" },
        { kind: "story", status: "closed:not_planned" },
        { kind: "task", status: "open" },
        { kind: "task", status: "closed:completed" },
      ]),
    ).toBe(1 + 2 + 2 + 3);
  });

  it("costs nothing for no create", () => {
    expect(createWriteCost([])).toBe(0);
  });
});
