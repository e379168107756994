/** The transform registry: each named transform, and exact inverses where promised. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  escapeMentions as neutralizeMentions,
  liveMentions,
  restoreMentions,
} from "../../../src/mapping/mentions.js";
import { composeTransforms, TRANSFORM_NAMES } from "../../../src/mapping/transforms.js";

const J = "\u2060";

describe("neutralize-mentions", () => {
  it.each([
    ["@ana", `@${J}ana`],
    ["see #12", `see #${J}12`],
    ["# Heading", "# Heading"],
    ["## Sub", "## Sub"],
    // An e-mail address is a link, not a mention (it was joined before code-aware escaping).
    ["mail a@b.io", "mail a@b.io"],
    ["x@y", `x@${J}y`],
    ["use `@retry` and @ana", `use \`@retry\` and @${J}ana`],
    [
      "```python\n@retry\ndef f(): #1\n```\n@ana",
      `\`\`\`python\n@retry\ndef f(): #1\n\`\`\`\n@${J}ana`,
    ],
    ["para\n\n    @indented #2\n\n@b", `para\n\n    @indented #2\n\n@${J}b`],
    ["> ```\n> @quoted\n> ```\n> @c", `> \`\`\`\n> @quoted\n> \`\`\`\n> @${J}c`],
    ["- @a `#1`\n  - `@b` #3", `- @${J}a \`#1\`\n  - \`@b\` #${J}3`],
    ["[see #4](http://x/#top)", `[see #${J}4](http://x/#top)`],
    ["<http://x/#a> http://y.io/#b", "<http://x/#a> http://y.io/#b"],
    [
      "| `@t` | @u |\r\n|---|---|\r\n| #5 | `#6` |",
      `| \`@t\` | @${J}u |\r\n|---|---|\r\n| #${J}5 | \`#6\` |`,
    ],
    [`already @${J}x`, `already @${J}${J}x`],
    ["@ alone", "@ alone"],
  ])("turns %j into %j", (input, output) => {
    expect(neutralizeMentions(input)).toBe(output);
    expect(restoreMentions(output)).toBe(input);
  });

  it("is exactly inverted for any text", () => {
    const text = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({ unit: fc.constantFrom("@", "#", J, "a", "1", " ") }),
      fc.string({
        unit: fc.constantFrom(
          "@",
          "#",
          J,
          "a",
          "`",
          "\n",
          "\r",
          " ",
          "[",
          "]",
          "(",
          ")",
          ">",
          "-",
          "|",
          ":",
          "/",
        ),
      }),
    );
    fc.assert(
      fc.property(text, (s) => {
        expect(restoreMentions(neutralizeMentions(s))).toBe(s);
      }),
    );
  });
});

describe("liveMentions", () => {
  it("lists the live mentions and references outside code", () => {
    expect(liveMentions(`@ana, @${J}bob, \`@c\`, #7 and a@b.io`)).toEqual(["@ana", "#7"]);
  });

  it("rewrites a mention instead of escaping it when asked (real mentions)", () => {
    const out = neutralizeMentions("@ana and @bob", {
      rewrite: (r) => (r.name === "ana" ? "@ana-gh" : undefined),
    });
    expect(out).toBe(`@ana-gh and @${J}bob`);
  });
});

describe("the registry", () => {
  it("lists every transform", () => {
    expect(TRANSFORM_NAMES).toEqual([
      "neutralize-mentions",
      "number-to-string",
      "no-spaces",
      "lowercase",
    ]);
  });

  it.each<[string, unknown, unknown, unknown]>([
    ["number-to-string", 2.5, "2.5", 2.5],
    ["no-spaces", "web  shop", "web_shop", "web_shop"],
    ["lowercase", "ABC", "abc", "abc"],
  ])("%s: %j → %j → %j", (name, input, out, back) => {
    const t = composeTransforms([name as (typeof TRANSFORM_NAMES)[number]]);
    expect(t.forward(input)).toEqual(out);
    expect(t.inverse(out)).toEqual(back);
  });

  it("keeps absent values absent", () => {
    const t = composeTransforms([...TRANSFORM_NAMES]);
    expect(t.forward(undefined)).toBeUndefined();
    expect(t.inverse(undefined)).toBeUndefined();
  });
});
