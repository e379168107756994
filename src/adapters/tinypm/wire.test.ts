import { describe, expect, it } from "vitest";
import { XmlRejection, buildXml, decodeXmlText, parseXml } from "./wire.js";

const limits = { maxBytes: 100_000, maxDepth: 10 };

describe("parseXml", () => {
  it("keeps text verbatim: leading zeros, spaces, CR as &#xD;, built-in entities once", () => {
    const { name, root } = parseXml(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<userStory>\n  <id>0012</id>\n  <name> a &amp;#xD; b&#xD;\nc &lt;&apos;&#233;</name>\n</userStory>`,
      limits,
    );
    expect(name).toBe("userStory");
    expect(root).toEqual({ id: "0012", name: " a &#xD; b\r\nc <'é" });
  });

  it("reads repeated elements as arrays even when there is one, and empty wrappers as empty text", () => {
    const { root } = parseXml(
      "<task><assignedUsers><user><id>1</id></user></assignedUsers><comments/></task>",
      limits,
    );
    expect(root).toEqual({ assignedUsers: { user: [{ id: "1" }] }, comments: "" });
  });

  it("keeps unknown elements", () => {
    const { root } = parseXml("<task><futureField><x>1</x></futureField><id>3</id></task>", limits);
    expect(root).toEqual({ futureField: { x: "1" }, id: "3" });
  });

  it.each([
    ["a DOCTYPE", `<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`, /DOCTYPE/],
    ["an entity declaration", `<!ENTITY x "y"><a/>`, /entity/],
    ["deep nesting", `${"<a>".repeat(20)}${"</a>".repeat(20)}`, /deeper than 10/],
    ["an oversize document", `<a>${"x".repeat(100_001)}</a>`, /larger than/],
    ["malformed XML", "<a><b></a>", /malformed/],
  ])("rejects %s", (_label, text, message) => {
    expect(() => parseXml(text, limits)).toThrow(XmlRejection);
    expect(() => parseXml(text, limits)).toThrow(message);
  });
});

describe("buildXml", () => {
  it("escapes markup and writes carriage returns as &#xD;, and round-trips", () => {
    const xml = buildXml("task", { name: "a\r\nb & <c>", assignedUsers: { user: [{ id: "1" }] } });
    expect(xml).toContain("<name>a&#xD;\nb &amp; &lt;c&gt;</name>");
    expect(parseXml(xml, limits).root).toEqual({
      name: "a\r\nb & <c>",
      assignedUsers: { user: [{ id: "1" }] },
    });
  });
});

describe("decodeXmlText", () => {
  it("leaves unknown entities alone (no HTML entities)", () => {
    expect(decodeXmlText("&nbsp;&amp;&#x41;&#66;")).toBe("&nbsp;&AB");
  });
});
