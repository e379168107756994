/** The transform registry: each named transform, and exact inverses where promised. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  composeTransforms,
  neutralizeMentions,
  restoreMentions,
  TRANSFORM_NAMES,
} from "../../../src/mapping/transforms.js";

const J = "\u2060";

describe("neutralize-mentions", () => {
  it.each([
    ["@ana", `@${J}ana`],
    ["see #12", `see #${J}12`],
    ["# Heading", "# Heading"],
    ["## Sub", "## Sub"],
    ["mail a@b.io", `mail a@${J}b.io`],
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
    );
    fc.assert(
      fc.property(text, (s) => {
        expect(restoreMentions(neutralizeMentions(s))).toBe(s);
      }),
    );
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
