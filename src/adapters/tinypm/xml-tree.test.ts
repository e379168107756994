import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeXmlText, parseXml, parseXmlWithParser } from "./wire.js";
import { readPlainXml } from "./xml-tree.js";

const limits = { maxBytes: 1_000_000, maxDepth: 64 };
const repeated = (parent: string, name: string): boolean =>
  (parent === "tasks" && name === "task") || (parent === "users" && name === "user");
const read = (xml: string) => readPlainXml(xml, decodeXmlText, repeated);

/** A random plain element: text (with entities, CR, spaces) or children, some repeated. */
type Tree = { name: string; text: string } | { name: string; children: Tree[] };
const NAMES = ["id", "name", "task", "tasks", "user", "users", "status", "x"];
const textArb = fc.string({
  unit: fc.constantFrom("a", " ", "\n", "\r", "&amp;", "&lt;", "&#xD;", "&#233;", "é", ">", "0"),
});
const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small" },
    fc.record({ name: fc.constantFrom(...NAMES), text: textArb }),
    fc.record({
      name: fc.constantFrom(...NAMES),
      children: fc.array(tie("tree"), { minLength: 1, maxLength: 4 }),
    }),
  ),
})).tree;

function render(tree: Tree, indent: string, selfClose: boolean): string {
  if ("text" in tree) {
    return tree.text === "" && selfClose
      ? `<${tree.name}/>`
      : `<${tree.name}>${tree.text}</${tree.name}>`;
  }
  const inner = tree.children.map((c) => `${indent}${render(c, indent, selfClose)}`).join("");
  return `<${tree.name}>${inner}${indent}</${tree.name}>`;
}

describe("readPlainXml", () => {
  it("reads plain documents exactly as fast-xml-parser does (after dropping indentation)", () => {
    fc.assert(
      fc.property(
        treeArb,
        fc.constantFrom("", "\n  ", "\n\t", " "),
        fc.boolean(),
        fc.boolean(),
        (tree, indent, selfClose, declaration) => {
          const head = declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : "";
          const xml = `${head}${render(tree, indent, selfClose)}\n`;
          const fast = read(xml);
          expect(fast).toBeDefined();
          expect(fast).toEqual(parseXmlWithParser(xml));
          expect(parseXml(xml, limits)).toEqual(fast);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ["attributes", '<a x="1"><b>2</b></a>'],
    ["a comment", "<a><!-- c --><b>2</b></a>"],
    ["CDATA", "<a><![CDATA[x]]></a>"],
    ["mixed content", "<a>text<b>2</b></a>"],
    ["text after the children", "<a><b>2</b>tail</a>"],
    ["a processing instruction", "<a><?pi x?></a>"],
    ["a second root", "<a/><b/>"],
    ["a name of every object", "<a><constructor>1</constructor></a>"],
    ["a namespaced name", "<a><n:b>1</n:b></a>"],
  ])("leaves %s to fast-xml-parser", (_label, xml) => {
    expect(read(xml)).toBeUndefined();
    expect(() => parseXml(xml, limits)).not.toThrow(TypeError);
  });

  it("reads the wire's repeated elements as arrays, and empty elements as empty text", () => {
    expect(read("<tasks>\n  <task><id>1</id></task>\n  <x/>\n</tasks>")).toEqual({
      name: "tasks",
      root: { task: [{ id: "1" }], x: "" },
    });
  });
});
