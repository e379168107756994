import { describe, expect, it } from "vitest";
import { childOf, parseXml, XmlSyntaxError } from "./xml-read.js";
import { escapeText, formatDecimal, isLongDate, isShortDate } from "./xml-write.js";

function failure(source: string): XmlSyntaxError {
  try {
    parseXml(source);
  } catch (error) {
    if (error instanceof XmlSyntaxError) return error;
    throw error;
  }
  throw new Error("expected a syntax error");
}

describe("parseXml", () => {
  it("reads elements, text, references, CDATA, comments and the declaration", () => {
    const root = parseXml(
      '\uFEFF<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<!-- hi -->' +
        "<a x=\"1\" y='2'><b>1 &lt; 2 &amp;&#xD;&#10;&quot;</b><c><![CDATA[<raw> & ]]></c><d/></a>",
    );
    expect(root.name).toBe("a");
    expect(childOf(root, "b")?.text).toBe('1 < 2 &\r\n"');
    expect(childOf(root, "c")?.text).toBe("<raw> & ");
    expect(childOf(root, "d")).toEqual({ name: "d", children: [], text: "" });
  });

  it("reports line and column of a mismatched end tag", () => {
    const e = failure("<a>\n  <b>x</c>\n</a>");
    expect(e.line).toBe(2);
    expect(e.column).toBe(7);
    expect(e.message).toMatch(/line 2, column 7/);
  });

  it.each([
    ["<!DOCTYPE a><a/>", /DOCTYPE/],
    ['<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', /DOCTYPE/],
    ["<a><!ENTITY e 'x'></a>", /entity declarations/],
    ["<a>&e;</a>", /undefined entity/],
    ["<a>&#0;</a>", /undefined entity/],
    ["<a>x & y</a>", /entity reference/],
    ["<a>", /missing end tag/],
    ["<a/><b/>", /after the root/],
    ["", /root element/],
    ["text", /root element/],
    ['<a x="1" x="2"/>', /duplicate attribute/],
    ["<a x=1/>", /quoted/],
  ])("refuses %s", (source, reason) => {
    expect(failure(source).message).toMatch(reason);
  });

  it("limits the nesting depth", () => {
    const deep = `${"<a>".repeat(70)}${"</a>".repeat(70)}`;
    expect(failure(deep).message).toMatch(/deeper than 64/);
    expect(parseXml(deep, 100).name).toBe("a");
  });
});

describe("xml-write", () => {
  it("escapes like JAXB and formats decimals with a point", () => {
    expect(escapeText(`a & <b> "c" 'd'\r\n`)).toBe(`a &amp; &lt;b&gt; "c" 'd'&#xD;\n`);
    expect([0, 0.5, 3, 20, 22.5].map(formatDecimal)).toEqual(["0.0", "0.5", "3.0", "20.0", "22.5"]);
  });

  it("validates short and long dates", () => {
    expect(isShortDate("2024-02-29")).toBe(true);
    expect(isShortDate("2023-02-29")).toBe(false);
    expect(isShortDate("2023-13-01")).toBe(false);
    expect(isLongDate("2012-02-04 21:17:47.765")).toBe(true);
    expect(isLongDate("2012-02-04 24:00:00.000")).toBe(false);
    expect(isLongDate("2012-02-04T21:17:47.765")).toBe(false);
  });
});
