import { describe, expect, it } from "vitest";
import { z } from "zod";
import { zodIssues } from "./zod-issues.js";

const Schema = z.strictObject({
  name: z.string(),
  size: z.number().optional(),
  mode: z.enum(["fast", "safe"]).optional(),
  colour: z
    .string()
    .regex(/^[0-9a-f]{6}$/, "a colour is 6 hex digits")
    .optional(),
  target: z
    .discriminatedUnion("type", [
      z.strictObject({ type: z.literal("github"), repo: z.string() }),
      z.strictObject({ type: z.literal("jira"), project: z.string() }),
    ])
    .optional(),
  nested: z.strictObject({ alpha: z.string().optional(), beta: z.string().optional() }).optional(),
});

function messages(input: unknown, known?: Parameters<typeof zodIssues>[1]["known"]): string[] {
  const parsed = Schema.safeParse(input, { reportInput: true });
  if (parsed.success) return [];
  return zodIssues(parsed.error.issues, { file: "f.yaml", root: Schema, input, known }).map(
    (i) => `${i.path.join(" > ")}: ${i.message}`,
  );
}

describe("zodIssues, the one formatter of the config's and the mapping's problems", () => {
  it("guesses a misspelt key, lists the valid keys of a far one, names the file", () => {
    expect(messages({ name: "a", sise: 1, zzzzzz: 2 })).toEqual([
      'sise: unknown key "sise"; did you mean "size"?',
      'zzzzzz: unknown key "zzzzzz"; valid keys: name, size, mode, colour, target, nested',
    ]);
    const parsed = Schema.safeParse({ name: "a", x: 1 });
    expect(zodIssues(parsed.error?.issues ?? [], { file: "f.yaml" })).toEqual([
      { file: "f.yaml", path: ["x"], message: 'unknown key "x"; remove it or check its spelling' },
    ]);
  });

  it("takes the valid keys from `known` where the schema alone cannot tell", () => {
    expect(messages({ name: "a", nested: { gama: "x" } }, () => ["alpha", "gamma"])).toEqual([
      'nested > gama: unknown key "gama"; did you mean "gamma"?',
    ]);
  });

  it("says what was found and what is allowed for choices, types, tags and rules", () => {
    expect(
      messages({
        size: "big",
        mode: "quick",
        colour: "blue-ish",
        target: { type: "gitlab" },
      }),
    ).toEqual([
      "name: missing; expected string",
      'size: found "big"; expected number',
      'mode: found "quick"; valid choices: fast, safe',
      'colour: a colour is 6 hex digits (found "blue-ish")',
      'target > type: found "gitlab"; valid choices: github, jira',
    ]);
  });
});
