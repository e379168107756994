import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adfToMarkdown } from "./adf-render.js";
import type { AdfNode } from "./adf.js";
import { markdownToWiki, richDescriptionOfWiki, wikiFromPieces } from "./wiki-blocks.js";
import { parseWikiBlocks, wikiToAdfContent } from "./wiki-parse.js";
import { renderWiki } from "./wiki-render.js";

const wikiOf = (nodes: readonly AdfNode[]): string => renderWiki(nodes).wiki;
const normalise = (wiki: string): string => wikiOf(wikiToAdfContent(wiki));
const toMarkdown = (wiki: string): string =>
  adfToMarkdown({ type: "doc", content: wikiToAdfContent(wiki) });

const SAMPLE = [
  "h2. Acceptance",
  "",
  "Call *my_function_name* with {{snake_case_arg}}; see [the docs|https://x.example/a_b_c] and ask [~jsmith].",
  "A second line, a-b-c and 2 - 1 and C:\\temp.",
  "",
  "# first",
  "# second",
  "## nested _one_",
  "#* mixed bullet",
  "",
  "||Name||Value||",
  "|alpha|1|",
  "|-struck-|+under+|",
  "",
  "{code:python}",
  "def f(a_b):",
  "    return a_b * 2  # *not bold*",
  "{code}",
  "",
  "{noformat}",
  "*raw* _text_",
  "{noformat}",
  "",
  "{quote}",
  "Quoted *text*",
  "{quote}",
  "",
  "{panel:title=Note}",
  "Inside a panel",
  "{panel}",
  "",
  "bq. a short quote",
  "",
  "----",
].join("\n");

describe("Jira wiki markup ⇄ ADF", () => {
  it("parses the constructs into their ADF nodes", () => {
    const nodes = wikiToAdfContent(SAMPLE);
    expect(nodes.map((n) => n.type)).toEqual([
      "heading",
      "paragraph",
      "orderedList",
      "table",
      "codeBlock",
      "codeBlock",
      "blockquote",
      "panel",
      "blockquote",
      "rule",
    ]);
    expect(nodes[1]?.content).toContainEqual({
      type: "mention",
      attrs: { id: "jsmith", text: "@jsmith" },
    });
    expect(nodes[1]?.content).toContainEqual({
      type: "text",
      text: "my_function_name",
      marks: [{ type: "strong" }],
    });
    expect(nodes[4]).toEqual({
      type: "codeBlock",
      attrs: { language: "python" },
      content: [{ type: "text", text: "def f(a_b):\n    return a_b * 2  # *not bold*" }],
    });
    const md = toMarkdown(SAMPLE);
    expect(md).toContain("1. first\n2. second\n  1. nested _one_\n  - mixed bullet");
    expect(md).toMatch(/^\| *Name *\| *Value *\|$/m);
    expect(md).toContain("a-b-c and 2 - 1");
  });

  it("keeps snake_case, hyphens and numbered lists as they are (what regex converters break)", () => {
    const text = "my_var_name and x-y-z\n\n# one\n# two";
    expect(normalise(text)).toBe(text);
    expect(wikiToAdfContent("my_var_name")[0]?.content).toEqual([
      { type: "text", text: "my_var_name" },
    ]);
    expect(wikiToAdfContent("h1. Title\n# one\n## two").map((n) => n.type)).toEqual([
      "heading",
      "orderedList",
    ]);
  });

  it("is stable after one pass: wiki → ADF → wiki → ADF → wiki", () => {
    const once = normalise(SAMPLE);
    expect(normalise(once)).toBe(once);
    expect(wikiToAdfContent(once)).toEqual(wikiToAdfContent(SAMPLE));
  });

  it("writes Markdown through ADF to wiki and reads it back to the same Markdown", () => {
    const markdown = [
      "## Plan",
      "",
      "Use **bold**, _em_, `code_x_y` and [a link](https://x.example/a_b).",
      "",
      "- one\n  - nested\n- two",
      "",
      "1. first\n2. second",
      "",
      "| h1 | h2 |\n| --- | --- |\n| a | b |",
      "",
      "```ts\nconst a_b = 1;\n```",
      "",
      "> quoted",
      "",
      "---",
    ].join("\n");
    const { wiki, lost } = markdownToWiki(markdown);
    expect(lost).toEqual([]);
    expect(toMarkdown(wiki)).toBe(markdown);
    expect(normalise(wiki)).toBe(wiki);
  });

  it("round-trips random Markdown-built documents (property)", () => {
    const word = fc.stringMatching(/^[a-z][a-z_0-9-]{0,8}$/);
    const punct = fc.constantFrom(
      "*",
      "_",
      "-",
      "+",
      "^",
      "~",
      "{",
      "}",
      "[",
      "]",
      "|",
      "!",
      "?",
      "#",
      ".",
      " ",
    );
    const textArb = fc
      .array(fc.oneof(word, punct), { minLength: 1, maxLength: 8 })
      .map((parts) => parts.join(""))
      .filter((s) => s.trim() === s && s !== "");
    const marks = fc.subarray([{ type: "strong" }, { type: "em" }, { type: "strike" }]);
    const inline = fc
      .tuple(textArb, marks)
      .map(([text, m]) =>
        m.length === 0 ? { type: "text", text } : { type: "text", text, marks: m },
      );
    const para = fc
      .array(inline, { minLength: 1, maxLength: 3 })
      .map((content) => ({ type: "paragraph", content }));
    fc.assert(
      fc.property(fc.array(para, { minLength: 1, maxLength: 3 }), (blocks) => {
        const back = wikiToAdfContent(wikiOf(blocks));
        // Text survives; after one pass (adjacent runs joined) wiki and ADF are fixed points.
        expect(wikiToAdfContent(wikiOf(back))).toEqual(back);
        const plain = (nodes: readonly AdfNode[]) =>
          nodes.map((b) => (b.content ?? []).map((n) => n.text ?? "").join("")).join("\n");
        expect(plain(back)).toBe(plain(blocks));
      }),
      { numRuns: 2000 },
    );
  });

  it("reports what it cannot represent instead of dropping it", () => {
    const read = richDescriptionOfWiki("{color:red}red text{color} and !diagram.png!");
    expect(read?.blocks[0]?.lost).toEqual(expect.arrayContaining(["text colour", "image"]));
    expect(read?.blocks[0]?.text).toContain("red text");
    const status: AdfNode = {
      type: "paragraph",
      content: [{ type: "status", attrs: { text: "DONE" } }],
    };
    expect(renderWiki([status])).toEqual({ wiki: "DONE", lost: ["status"] });
  });

  it("writes kept blocks back as their own wiki source, byte for byte", () => {
    const wiki = "h2.   Odd   spacing\n\n* item one\n*  item two\n\n{code}x{code}";
    const read = richDescriptionOfWiki(wiki);
    const blocks = read?.blocks ?? [];
    expect(blocks).toHaveLength(3);
    const kept = wikiFromPieces(blocks.map((b) => ({ keep: b.rich })));
    expect(kept.wiki).toBe(wiki);
    // Only the changed block is rendered anew.
    const pieces = [
      { keep: blocks[0]?.rich ?? null },
      { text: "- item one\n- item 2" },
      { keep: blocks[2]?.rich ?? null },
    ];
    expect(wikiFromPieces(pieces).wiki).toBe(
      "h2.   Odd   spacing\n\n* item one\n* item 2\n\n{code}x{code}",
    );
    expect(parseWikiBlocks("")).toEqual([]);
  });
});

describe("Markdown → ADF stays the source of truth for the text", () => {
  it("escapes block markers at line starts", () => {
    const line = (text: string): AdfNode[] => [{ type: "text", text }];
    const adf: AdfNode[] = [
      {
        type: "paragraph",
        content: [...line("- not a list"), { type: "hardBreak" }, ...line("# not h1. either")],
      },
      { type: "paragraph", content: line("h2. not a heading") },
    ];
    const wiki = wikiOf(adf);
    expect(wikiToAdfContent(wiki)).toEqual(adf);
  });
});
