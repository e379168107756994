import { describe, expect, it } from "vitest";
import { adfProblem } from "./adf.js";

describe("adfProblem", () => {
  it.each([
    [{ type: "doc", version: 1, content: [] }, undefined],
    [
      {
        type: "doc",
        version: 1,
        content: [
          {
            type: "paragraph",
            content: [{ type: "text", text: "hi", marks: [{ type: "strong" }] }],
          },
        ],
      },
      undefined,
    ],
    ["plain", "the value is not an ADF document object"],
    [{ type: "doc", version: 2, content: [] }, "the document version must be 1"],
    [
      { type: "doc", version: 1, content: [{ type: "blink" }] },
      'content[0]: unknown node type "blink"',
    ],
  ])("judges %j", (value, problem) => {
    expect(adfProblem(value)).toBe(problem);
  });
});
