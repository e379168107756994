/**
 * The examples in docs/mappings.md ("… descriptions and comments as tinyPM text") are checked
 * against the adapters and the default mappings, so the documentation cannot drift: each ADF
 * example (```json adf) reads as the tinyPM text that follows it (```text tinypm), as a
 * description and as a comment; each GitHub example (```markdown github) reads as written. The
 * examples must also cover every node and mark the docs promise to handle.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as githubMap from "../../../src/adapters/github/map.js";
import { rawCommentSchema, rawIssueSchema } from "../../../src/adapters/github/schema.js";
import type { AdfNode } from "../../../src/adapters/jira/adf.js";
import * as jiraMap from "../../../src/adapters/jira/map.js";
import { rawComment, rawIssue } from "../../../src/adapters/jira/schema.js";
import { compileMapping, type CompiledMapping } from "../../../src/mapping/compile.js";
import { loadMapping } from "../../../src/mapping/load.js";

const DOC = readFileSync(new URL("../../../docs/mappings.md", import.meta.url), "utf8");
const load = (name: string): CompiledMapping =>
  compileMapping(
    loadMapping(fileURLToPath(new URL(`../../../mappings/${name}.yaml`, import.meta.url))),
  );

interface Fence {
  readonly info: string;
  readonly body: string;
  readonly line: number;
}

/** Every fenced block of a Markdown text (backtick fences of three or more, closed alike). */
function fences(text: string): Fence[] {
  const out: Fence[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const [, ticks = "", info = ""] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== ticks; i++) body.push(lines[i] ?? "");
    if (i >= lines.length) throw new Error(`docs/mappings.md:${start + 1}: unclosed fence`);
    out.push({ info: info.trim(), body: body.join("\n"), line: start + 1 });
  }
  return out;
}

interface Example {
  readonly source: Fence;
  readonly expected: string;
}

/** Each `source` fence with the tinyPM text that follows it (or itself, "as written"). */
function examples(all: readonly Fence[], source: string, asWritten: boolean): Example[] {
  const out: Example[] = [];
  all.forEach((f, i) => {
    if (f.info !== source) return;
    const next = all[i + 1];
    if (next?.info === "text tinypm") out.push({ source: f, expected: next.body });
    else if (asWritten) out.push({ source: f, expected: f.body });
    else throw new Error(`docs/mappings.md:${f.line}: "${source}" without a "text tinypm" block`);
  });
  return out;
}

const ALL = fences(DOC);
const JIRA = examples(ALL, "json adf", false);
const GITHUB = examples(ALL, "markdown github", true);

/** Node and mark types used anywhere in a piece of ADF. */
function typesIn(node: AdfNode, into = new Set<string>()): Set<string> {
  into.add(node.type);
  for (const m of node.marks ?? []) into.add(`mark:${m.type}`);
  for (const c of node.content ?? []) typesIn(c, into);
  return into;
}

describe("docs/mappings.md: Jira nodes as tinyPM text", () => {
  const mapping = load("jira");
  const CTX = { baseUrl: "https://example.atlassian.net", storyPointsField: undefined };

  it("has an example of every node and mark the adapter reads", () => {
    const seen = new Set<string>();
    for (const e of JIRA) typesIn(JSON.parse(e.source.body) as AdfNode, seen);
    const promised = [
      ...["paragraph", "text", "hardBreak", "heading", "blockquote", "rule", "codeBlock"],
      ...["bulletList", "orderedList", "listItem", "taskList", "taskItem"],
      ...["decisionList", "decisionItem", "table", "tableRow", "tableHeader", "tableCell"],
      ...["panel", "expand", "nestedExpand", "mention", "status", "date", "emoji"],
      ...["inlineCard", "blockCard", "mediaSingle", "mediaGroup", "media", "caption"],
      "placeholder",
      ...["mark:link", "mark:strong", "mark:em", "mark:code", "mark:strike"],
      ...["mark:textColor", "mark:backgroundColor", "mark:underline", "mark:subsup"],
    ];
    expect(promised.filter((t) => !seen.has(t))).toEqual([]);
  });

  it.each(JIRA.map((e) => [e.source.line, e] as const))(
    "the example at line %i reads as documented, in a description and in a comment",
    (_line, e) => {
      const node = JSON.parse(e.source.body) as AdfNode;
      const doc = { type: "doc", version: 1, content: [node] };
      const issue = rawIssue.parse({
        id: "10001",
        key: "OPS-1",
        fields: {
          summary: "Rollout",
          issuetype: { name: "Story", subtask: false },
          status: { name: "To Do" },
          description: doc,
        },
      });
      const item = jiraMap.toWorkItem(issue, { ...CTX, sprintField: "customfield_10020" });
      expect(mapping.toTinypm(item).description).toBe(e.expected);
      const comment = jiraMap.toComment(
        rawComment.parse({ id: "1", body: doc, created: "2026-01-01T10:00:00.000+0000" }),
      );
      expect(mapping.commentToTinypm(comment).body).toBe(e.expected);
    },
  );
});

describe("docs/mappings.md: GitHub Markdown as tinyPM text", () => {
  const mapping = load("github");

  it("has an example of every construct it names", () => {
    const text = GITHUB.map((e) => e.source.body).join("\n");
    const constructs = [
      /<details>/,
      /<summary>/,
      /^- \[x\] /m,
      /^ {2}- \[ \] /m,
      /^\| -+ \|/m,
      /\[\^1\]:/,
      /<!--/,
      /!\[[^\]]+\]\(https:/,
      /(^|\s)https:\/\/\S+/,
      /@alice/,
      /#12/,
      /^```python$/m,
    ];
    expect(constructs.filter((c) => !c.test(text)).map(String)).toEqual([]);
  });

  it.each(GITHUB.map((e) => [e.source.line, e] as const))(
    "the example at line %i reads as documented, in a description and in a comment",
    (_line, e) => {
      const issue = rawIssueSchema.parse({
        id: 1,
        number: 1,
        title: "Saving fails",
        body: e.source.body,
        state: "open",
        created_at: "2026-01-01T10:00:00Z",
        updated_at: "2026-01-01T10:00:00Z",
      });
      expect(mapping.toTinypm(githubMap.toWorkItem(issue)).description).toBe(e.expected);
      const comment = rawCommentSchema.parse({
        id: 1,
        body: e.source.body,
        user: { login: "alice" },
        created_at: "2026-01-01T10:00:00Z",
      });
      expect(mapping.commentToTinypm(githubMap.toComment(comment)).body).toBe(e.expected);
    },
  );
});
