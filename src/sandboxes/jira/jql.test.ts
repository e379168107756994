import { describe, expect, it } from "vitest";
import { parseJql } from "./jql.js";
import { compileJql, parseDate, type JqlIssue } from "./jql-eval.js";

const env = {
  now: Date.UTC(2026, 10, 21, 12, 0),
  projects: [{ id: "10000", key: "WID", name: "Widgets" }],
  issueExists: (ref: string) => ["WID-1", "WID-2", "WID-10", "10001"].includes(ref.toUpperCase()),
};

function issue(n: number, extra: Partial<JqlIssue> = {}): JqlIssue {
  return {
    id: 10000 + n,
    key: `WID-${n}`,
    projectId: "10000",
    projectKey: "WID",
    projectName: "Widgets",
    created: Date.UTC(2026, 10, 1),
    updated: Date.UTC(2026, 10, 20, 8, n),
    status: { id: "10000", name: "To Do" },
    issueType: { id: "10001", name: "Story" },
    priority: { id: "3", name: "Medium" },
    labels: [],
    sprints: [],
    summary: `Story ${n}`,
    text: `Story ${n}`,
    property: () => undefined,
    ...extra,
  };
}

function run(jql: string, issues: readonly JqlIssue[]): string[] {
  const compiled = compileJql(parseJql(jql), env);
  return issues
    .filter((i) => compiled.matches(i))
    .sort((a, b) => compiled.compare(a, b))
    .map((i) => i.key);
}

describe("parseJql", () => {
  it("reads clauses joined by AND and an ORDER BY list", () => {
    expect(
      parseJql('project = WID AND key in (WID-1, "WID-2") ORDER BY updated ASC, key DESC'),
    ).toEqual({
      clauses: [
        {
          field: "project",
          property: undefined,
          operator: "=",
          values: [{ kind: "word", text: "WID" }],
        },
        {
          field: "key",
          property: undefined,
          operator: "in",
          values: [
            { kind: "word", text: "WID-1" },
            { kind: "string", text: "WID-2" },
          ],
        },
      ],
      orderBy: [
        { field: "updated", direction: "asc" },
        { field: "key", direction: "desc" },
      ],
    });
  });

  it("reads entity property fields", () => {
    expect(parseJql('issue.property[tinypm].a.b = "x"').clauses[0]?.property).toEqual({
      key: "tinypm",
      path: ["a", "b"],
    });
  });

  it.each([
    ["project = WID OR key = WID-1", /supports only AND/],
    ["project WID", /Expecting operator but got 'WID'/],
    ['summary ~ "open', /not terminated/],
    ["assignee = currentUser()", /function 'currentUser\(\)' is not supported/],
    ["key in (WID-1", /Expecting '\)'/],
  ])("refuses %s", (jql, message) => {
    expect(() => parseJql(jql)).toThrow(message);
  });
});

describe("compileJql", () => {
  const issues = [
    issue(1),
    issue(2, { labels: ["ui"] }),
    issue(10, { parent: { id: 10001, key: "WID-1" } }),
  ];

  it("orders keys by number, not as text", () => {
    expect(run("project = WID ORDER BY key ASC", issues)).toEqual(["WID-1", "WID-2", "WID-10"]);
  });

  it("filters by updated with minute-precision strings and epoch ms", () => {
    expect(run('updated >= "2026/11/20 08:02"', issues)).toEqual(["WID-10", "WID-2"]);
    expect(run(`updated >= ${Date.UTC(2026, 10, 20, 8, 10)}`, issues)).toEqual(["WID-10"]);
    expect(run('updated < "2026-11-20 08:02"', issues)).toEqual(["WID-1"]);
  });

  it("filters by parent, labels and emptiness", () => {
    expect(run("parent = WID-1", issues)).toEqual(["WID-10"]);
    expect(run("labels = ui", issues)).toEqual(["WID-2"]);
    expect(run("labels is EMPTY ORDER BY key", issues)).toEqual(["WID-1", "WID-10"]);
  });

  it("matches entity property values as text", () => {
    const tagged = issue(2, { property: (k) => (k === "tinypm" ? { id: 42 } : undefined) });
    expect(run("issue.property[tinypm].id = 42", [issue(1), tagged])).toEqual(["WID-2"]);
  });

  it("says an unbounded query is unbounded", () => {
    expect(compileJql(parseJql("ORDER BY key"), env).bounded).toBe(false);
  });

  it.each([
    ["project = NOPE", "The value 'NOPE' does not exist for the field 'project'."],
    ["key = WID-99", "An issue with key 'WID-99' does not exist for field 'key'."],
    ["color = red", "Field 'color' does not exist or you do not have permission to view it."],
    ["project ~ WID", "The operator '~' is not supported by the 'project' field."],
  ])("refuses %s", (jql, message) => {
    expect(() => compileJql(parseJql(jql), env)).toThrow(message);
  });
});

describe("parseDate", () => {
  it.each([
    ["2026/11/21 06:10", Date.UTC(2026, 10, 21, 6, 10)],
    ["2026-11-21", Date.UTC(2026, 10, 21)],
    ["-15m", env.now - 15 * 60_000],
    ["-1w 2d", env.now - 9 * 86_400_000],
  ])("reads %s", (text, expected) => {
    expect(parseDate({ kind: "string", text }, "updated", env.now)).toBe(expected);
  });

  it("reads any unquoted integer as epoch milliseconds, including 0", () => {
    expect(parseDate({ kind: "word", text: "0" }, "updated", env.now)).toBe(0);
    expect(parseDate({ kind: "word", text: "1763705400000" }, "updated", env.now)).toBe(
      1763705400000,
    );
  });

  it("refuses other text with the valid formats", () => {
    expect(() => parseDate({ kind: "string", text: "21.11.2026" }, "updated", env.now)).toThrow(
      /Valid formats include/,
    );
  });
});
