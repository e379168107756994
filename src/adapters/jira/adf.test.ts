import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adfToMarkdown } from "./adf-render.js";
import { markdownToAdf } from "./adf.js";

const roundTrip = (md: string): string => adfToMarkdown(markdownToAdf(md));

describe("Markdown → ADF → Markdown", () => {
  it.each([
    "",
    "plain text",
    "line one\nline two",
    "para one\n\npara two",
    "x\n\n\n\ny",
    "x\n\n\ny",
    "trailing newline\n",
    "\nleading newline",
    "a * b _ c # d < e > f & g",
    "# a heading",
    "#hashtag",
    "2 * 3 * 4 = 24",
    "snake_case_name and __init__ and _x",
    "ünïcödé 日本語 😀 «quotes»",
    "- a\n- b",
    "* star list stays literal\n* b",
    "1. x\n2. y",
    "1. x\n1. y",
    "3. starts at three\n4. four",
    "01. leading zero",
    "- a\n  - nested\n- b",
    "- a\n    - too deep",
    "`code` and **bold** and _em_ and ~~gone~~",
    "[link](http://x.y/z?q=1) after",
    "```js\nlet a = 1;\n\nlet b = 2;\n```",
    "```\n```",
    "```\n\n```",
    "<b>html</b> stays",
    "  indented",
    "\\- escaped dash",
    "\\\\- two backslashes",
    "\\plain backslash",
    "> quoted\n>\n> two",
    ">no space",
    "---",
    "--- not a rule",
    "**unclosed",
  ])("gives back %j unchanged", (md) => {
    expect(roundTrip(md)).toBe(md);
  });

  it("gives back any text written with Markdown-ish characters", () => {
    const alphabet = fc.constantFrom(
      ..."ab 1.-*_#<>`[]()~\\\n\tü😀".split(""),
      "\n\n",
      "```",
      "- ",
      "1. ",
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
        const md = parts.join("");
        expect(roundTrip(md)).toBe(md);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("markdownToAdf", () => {
  it("turns a single newline into a hardBreak", () => {
    expect(markdownToAdf("a\nb").content).toEqual([
      {
        type: "paragraph",
        content: [{ type: "text", text: "a" }, { type: "hardBreak" }, { type: "text", text: "b" }],
      },
    ]);
  });

  it("builds lists, code, links and emphasis", () => {
    const doc = markdownToAdf("- **a**\n- [b](http://b)\n\n```ts\nx\n```");
    expect(doc.content[0]).toEqual({
      type: "bulletList",
      content: [
        {
          type: "listItem",
          content: [
            {
              type: "paragraph",
              content: [{ type: "text", text: "a", marks: [{ type: "strong" }] }],
            },
          ],
        },
        {
          type: "listItem",
          content: [
            {
              type: "paragraph",
              content: [
                { type: "text", text: "b", marks: [{ type: "link", attrs: { href: "http://b" } }] },
              ],
            },
          ],
        },
      ],
    });
    expect(doc.content[1]).toEqual({
      type: "codeBlock",
      attrs: { language: "ts" },
      content: [{ type: "text", text: "x" }],
    });
  });
});

describe("ADF → Markdown → ADF", () => {
  const docs = [
    {
      type: "doc",
      version: 1,
      content: [{ type: "paragraph", content: [{ type: "text", text: "Hello" }] }],
    },
    {
      type: "doc",
      version: 1,
      content: [
        { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Title" }] },
        {
          type: "orderedList",
          attrs: { order: 1 },
          content: [
            {
              type: "listItem",
              content: [{ type: "paragraph", content: [{ type: "text", text: "one" }] }],
            },
            {
              type: "listItem",
              content: [{ type: "paragraph", content: [{ type: "text", text: "two" }] }],
            },
          ],
        },
        {
          type: "paragraph",
          content: [
            { type: "text", text: "see " },
            {
              type: "text",
              text: "docs",
              marks: [{ type: "link", attrs: { href: "https://x.y" } }],
            },
            { type: "text", text: " " },
            { type: "text", text: "now", marks: [{ type: "em" }] },
          ],
        },
        { type: "paragraph", content: [{ type: "text", text: "- literal dash" }] },
      ],
    },
  ] as const;

  it.each(docs.map((d, i) => [i, d] as const))("is stable for document %i", (_i, doc) => {
    expect(markdownToAdf(adfToMarkdown(doc))).toEqual(doc);
  });

  it("degrades nodes outside the subset to readable text", () => {
    const doc = {
      type: "doc",
      content: [
        {
          type: "paragraph",
          content: [
            { type: "mention", attrs: { id: "acc-1", text: "@Alice" } },
            { type: "text", text: " " },
            { type: "emoji", attrs: { shortName: ":smile:", text: "😄" } },
            { type: "text", text: " " },
            { type: "inlineCard", attrs: { url: "https://x.y" } },
          ],
        },
        {
          type: "panel",
          content: [{ type: "paragraph", content: [{ type: "text", text: "inside" }] }],
        },
      ],
    };
    // A panel's type is a prefix of its text (issue 21): an untyped panel is an info panel.
    // A mention keeps its accountId in the adapter's Markdown; tinyPM sees `@Alice` (the mapping).
    expect(adfToMarkdown(doc)).toBe("[@Alice](mention:acc-1) 😄 https://x.y\n\nInfo: inside");
  });
});
