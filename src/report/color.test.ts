import { describe, expect, it } from "vitest";
import { createPalette, shouldColor } from "./color.js";

describe("shouldColor", () => {
  it.each([
    [{ isTTY: true, env: {} }, true],
    [{ isTTY: false, env: {} }, false],
    [{ isTTY: undefined, env: {} }, false],
    [{ isTTY: true, env: { NO_COLOR: "1" } }, false],
    [{ isTTY: true, env: { NO_COLOR: "" } }, true],
    [{ isTTY: true, env: { TERM: "dumb" } }, false],
    [{ isTTY: false, env: { FORCE_COLOR: "1" } }, true],
    [{ isTTY: true, env: { FORCE_COLOR: "0" } }, false],
    [{ isTTY: false, env: { FORCE_COLOR: "1", NO_COLOR: "1" } }, false],
  ])("%j → %s", (ctx, expected) => {
    expect(shouldColor(ctx)).toBe(expected);
  });
});

describe("createPalette", () => {
  it("paints with ANSI codes when on and leaves text alone when off", () => {
    expect(createPalette(true).green("ok")).toBe("\u001b[32mok\u001b[39m");
    expect(createPalette(false).green("ok")).toBe("ok");
  });
});
