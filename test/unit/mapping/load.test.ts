/** Loading mapping files: the defaults are valid; every problem of a broken file is reported at once. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MappingError } from "../../../src/core/errors.js";
import { loadMapping, parseMapping } from "../../../src/mapping/load.js";
import { mappingPath } from "./fixtures.js";

const FILE = "mappings/broken.yaml";
const github = readFileSync(mappingPath("github.yaml"), "utf8");

function issuesOf(text: string): { path: string; message: string }[] {
  try {
    parseMapping(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(MappingError);
    const e = error as MappingError;
    expect(e.code).toBe("mapping_invalid");
    expect(e.issues.every((i) => i.file === FILE)).toBe(true);
    return e.issues.map((i) => ({ path: i.path.join(" > "), message: i.message }));
  }
  throw new Error("expected a MappingError");
}

describe("loadMapping", () => {
  it.each(["github.yaml", "jira.yaml"])("accepts the default %s", (name) => {
    expect(loadMapping(mappingPath(name)).from).toBe("tinypm");
  });

  it("names a missing file", () => {
    expect(() => loadMapping("/nonexistent/m.yaml")).toThrow(
      /m\.yaml could not be read \(ENOENT\)/,
    );
  });
});

describe("parseMapping on broken files", () => {
  it.each<[string, string, string, RegExp]>([
    [
      "a misspelt field",
      "  title: { to: title }",
      "  titel: { to: title }",
      /unknown key "titel"; did you mean "title"\?/,
    ],
    [
      "an unknown key near none",
      "  title: { to: title }",
      "  zzzz: { to: title }",
      /unknown key "zzzz"; valid keys: title, description, status/,
    ],
    [
      "a misspelt rule key",
      "  title: { to: title }",
      "  title: { to: title, maps: {} }",
      /unknown key "maps"; did you mean "map"\?/,
    ],
    [
      "an unknown slot",
      "  title: { to: title }",
      "  title: { to: heading }",
      /found "heading"; valid choices: title, description/,
    ],
    [
      "an unknown transform",
      "transform: [neutralize-mentions] }",
      "transform: [neutralise] }",
      /found "neutralise"; valid choices: neutralize-mentions, number-to-string/,
    ],
    [
      "an unknown target",
      "to: github",
      "to: gitlab",
      /found "gitlab"; valid choices: github, jira/,
    ],
    [
      "a bad colour",
      'color: "bfd4f2"',
      "color: blue-ish",
      /color: a colour is 6 hex digits.*\(found "blue-ish"\)/,
    ],
    [
      "a slot of the wrong type",
      "  iteration: { to: iteration }",
      "  iteration: { to: title }",
      /found "title" for a field of type iteration; valid choices: iteration, metadata/,
    ],
  ])("reports %s with path, found value and choices", (_name, from, to, pattern) => {
    const text = github.replace(from, to);
    expect(text).not.toBe(github);
    expect(
      issuesOf(text)
        .map((i) => `${i.path}: ${i.message}`)
        .join("\n"),
    ).toMatch(pattern);
  });

  it("reports every problem of a file at once, each with its path", () => {
    const text = github
      .replace("  title: { to: title }", "  titel: { to: title }")
      .replace("to: github", "to: gitlab")
      .replace("summary: true", "summary: yes please");
    expect(issuesOf(text)).toEqual([
      { path: "to", message: 'found "gitlab"; valid choices: github, jira' },
      expect.objectContaining({ path: "story > titel" }),
      { path: "timeEntries > summary", message: 'found "yes please"; expected boolean' },
    ]);
  });

  it("reports cross-field problems with their paths", () => {
    const text = `from: tinypm
to: github
story:
  estimate: { to: label, label: { prefix: "e: " } }
  position: { to: metadata, key: original }
  priority: { to: label, max: 3 }
  color: { to: label, label: { prefix: "e" } }
  title: { to: title }
  description: { to: title }
task: {}
comments: { header: true }
timeEntries: { to: metadata }
`;
    // In canonical field order (the order of WORK_ITEM_FIELD_NAMES), then the overlap check.
    expect(issuesOf(text).map((i) => `${i.path}: ${i.message}`)).toEqual([
      'story > description > to: found "title", already written by "title"; each target field takes one rule',
      "story > priority > label: missing; `to: label` needs a label spec with at least `prefix`",
      "story > priority > max: found 3 on `to: label`; valid only with `to: assignees`",
      "story > estimate > transform: a number written as a label needs [number-to-string]",
      'story > position > key: found "original"; reserved, choose another (reserved: original, timeEntries)',
      'story > estimate > label > prefix: found "e: ", which starts with "e" (color); label prefixes must not overlap',
    ]);
  });

  it("reports missing required sections", () => {
    expect(issuesOf("from: tinypm\nto: jira\n").map((i) => `${i.path}: ${i.message}`)).toEqual([
      "story: missing; expected object",
      "task: missing; expected object",
      "comments: missing; expected object",
      "timeEntries: missing; expected object",
    ]);
  });

  it("reports YAML syntax errors with line and column", () => {
    expect(issuesOf("from: tinypm\nto: [jira\n")[0]?.message).toMatch(
      /^YAML syntax: .* at line \d+, column \d+$/,
    );
  });

  it("puts file, path and choices into the error message", () => {
    expect(() => parseMapping(github.replace("to: github", "to: gitlab"), FILE)).toThrow(
      'mappings/broken.yaml > to: found "gitlab"; valid choices: github, jira',
    );
  });
});
