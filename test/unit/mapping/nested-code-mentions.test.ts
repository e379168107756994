import { describe, expect, it } from "vitest";
import { liveMentions, protectedRanges } from "../../../src/mapping/mentions.js";

/**
 * marked gives a nested list (and its items) a raw text without the parent item's indentation,
 * so it is not found verbatim in the description: the code inside it must still be found.
 * Found by the nested-list property test (seed 2144232507): a tinyPM mention of `@K` was
 * written live because `@K` stood in a code span of the replaced nested item.
 */
describe("mentions inside nested lists", () => {
  const text = [
    "+ top <!-- t -->",
    "  - [ ] second",
    "    - [x] third cc @boss",
    "      - fourth _a_ `@a`",
    "      - fifth _K a_ `@K`",
    "+ next",
    "",
  ].join("\n");

  it("finds code spans at every depth", () => {
    const code = protectedRanges(text).map(([s, e]) => text.slice(s, e));
    expect(code).toEqual(["`@a`", "`@K`"]);
  });

  it("counts only the mentions outside code as live", () => {
    expect(liveMentions(text)).toEqual(["@boss"]);
    const at = text.indexOf("      - fifth");
    expect(liveMentions(text, at, text.indexOf("+ next"))).toEqual([]);
  });

  it("protects a fenced code block inside a nested item line by line", () => {
    const fenced = ["- item", "  - inner", "    ```", "    @ana here", "    ```", ""].join("\n");
    expect(liveMentions(fenced)).toEqual([]);
  });
});
