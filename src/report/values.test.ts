import { describe, expect, it } from "vitest";
import { formatValue, shorten } from "./values.js";

describe("formatValue", () => {
  it.each([
    [null, "—"],
    ["Checkout", '"Checkout"'],
    ["two\nlines", '"two\\nlines"'],
    [3, "3"],
    [true, "true"],
    [["bug", "ui"], '"bug", "ui"'],
    [[], "(empty list)"],
    [{ name: "Sprint 3", days: 10 }, '{ name: "Sprint 3", days: 10 }'],
    [{}, "{}"],
  ] as const)("shows %j as %s", (value, shown) => {
    expect(formatValue(value)).toBe(shown);
  });

  it("shortens long values to max characters, ending with an ellipsis", () => {
    const shown = formatValue("x".repeat(100), { max: 20 });
    expect(shown).toHaveLength(20);
    expect(shown.endsWith("…")).toBe(true);
  });

  it("never cuts a character made of two UTF-16 units in half", () => {
    expect(shorten("😀😀😀", 2)).toBe("😀…");
  });
});
