/**
 * Property tests with list items, task items and table rows (and cells) as units: a tinyPM edit
 * of one item, task or cell leaves every other item, task, row, cell and block identical on the
 * target — random ADF with nested bullet, ordered and task lists and tables with rich cells on
 * Jira; random Markdown with nested task lists and pipe tables on GitHub.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { docFromPieces } from "../../../src/adapters/jira/adf-blocks.js";
import type { AdfNode } from "../../../src/adapters/jira/adf.js";
import type { WorkItem } from "../../../src/core/model.js";
import { markdownBlocks } from "../../../src/mapping/markdown-blocks.js";
import { bundledMapping, jiraItem, p, t, tinypmStory as story, word } from "./rich-text-kit.js";

const jira = bundledMapping("jira");
const github = bundledMapping("github");
const words = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(" "));

const inline: fc.Arbitrary<AdfNode> = fc.oneof(
  words.map((w) => t(w)),
  words.map((w) => t(w, [{ type: "strong" }])),
  words.map((w) => t(w, [{ type: "textColor", attrs: { color: "#ff5630" } }])),
  words.map((w) =>
    t(w, [{ type: "link", attrs: { href: `https://x.example/${w.length}`, title: w } }]),
  ),
  word.map((w) => ({ type: "mention", attrs: { id: `acc-${w}`, text: `@${w}` } })),
  word.map((w) => ({ type: "status", attrs: { text: w.toUpperCase(), color: "blue" } })),
  fc.constant({ type: "emoji", attrs: { shortName: ":rocket:", text: "🚀" } }),
);
let ids = 0;
const id = (): string => `id-${++ids}`;
// Every item, task and cell starts with a word of its own: of two identical twins, which one an
// edit touched is anyone's guess (both readings give the same text and nodes, but other ids).
const inlines = fc.array(inline, { minLength: 1, maxLength: 3 }).map((c) => [t(`x${id()} `), ...c]);

const task: fc.Arbitrary<AdfNode> = fc.tuple(inlines, fc.boolean()).map(([content, done]) => ({
  type: "taskItem",
  attrs: { localId: id(), state: done ? "DONE" : "TODO" },
  content,
}));

/** A bullet, ordered or task list, with lists nested in it down to `depth` 2. */
function listAt(depth: number): fc.Arbitrary<AdfNode> {
  const nested =
    depth < 2 ? fc.option(listAt(depth + 1), { nil: undefined }) : fc.constant(undefined);
  const item = fc
    .tuple(inlines, nested)
    .map(([c, n]): AdfNode => ({ type: "listItem", content: n ? [p(...c), n] : [p(...c)] }));
  const items = fc.array(item, { minLength: 1, maxLength: 3 });
  const tasks =
    depth < 2 ? fc.option(tasksAt(depth + 1), { nil: undefined }) : fc.constant(undefined);
  return fc.oneof(
    items.map((content) => ({ type: "bulletList", content })),
    fc
      .tuple(fc.constantFrom(1, 3), items)
      .map(([order, content]) => ({ type: "orderedList", attrs: { order }, content })),
    fc.tuple(fc.array(task, { minLength: 1, maxLength: 3 }), tasks).map(([ts, n]) => ({
      type: "taskList",
      attrs: { localId: id() },
      content: n ? [...ts, n] : ts,
    })),
  );
}

function tasksAt(depth: number): fc.Arbitrary<AdfNode> {
  const nested =
    depth < 2 ? fc.option(tasksAt(depth + 1), { nil: undefined }) : fc.constant(undefined);
  return fc.tuple(fc.array(task, { minLength: 1, maxLength: 3 }), nested).map(([ts, n]) => ({
    type: "taskList",
    attrs: { localId: id() },
    content: n ? [...ts, n] : ts,
  }));
}
const list = listAt(0);

const cell = (type: string): fc.Arbitrary<AdfNode> =>
  inlines.map((c) => ({ type, content: [p(...c)] }));
const table: fc.Arbitrary<AdfNode> = fc
  .tuple(
    fc.array(cell("tableHeader"), { minLength: 2, maxLength: 2 }),
    fc.array(fc.array(cell("tableCell"), { minLength: 2, maxLength: 2 }), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([head, rows]) => ({
    type: "table",
    content: [head, ...rows].map((content) => ({ type: "tableRow", content })),
  }));

const block = fc.oneof(
  inlines.map((c) => p(...c)),
  fc
    .tuple(fc.constantFrom("info", "warning"), inlines)
    .map(([panelType, c]) => ({ type: "panel", attrs: { panelType }, content: [p(...c)] })),
  list,
  table,
);

/** Paths (content indexes from the document) to every list item, task and table cell. */
function units(node: AdfNode, path: number[] = []): number[][] {
  return (node.content ?? []).flatMap((child, i) => {
    const here = [...path, i];
    switch (child.type) {
      case "listItem":
      case "taskItem":
      case "tableCell":
      case "tableHeader":
        return [here, ...units(child, here)];
      case "paragraph":
      case "panel":
        return [];
      default:
        return units(child, here);
    }
  });
}

function at(node: AdfNode, path: readonly number[]): AdfNode | undefined {
  return path.reduce<AdfNode | undefined>((n, i) => n?.content?.[i], node);
}

function setAt(node: AdfNode, path: readonly number[], f: (n: AdfNode) => AdfNode): AdfNode {
  const [i, ...rest] = path;
  if (i === undefined) return f(node);
  const content = [...(node.content ?? [])];
  const child = content[i];
  if (child !== undefined) content[i] = setAt(child, rest, f);
  return { ...node, content };
}

/** A unit with its own text replaced (a list item keeps its nested lists). */
function edited(n: AdfNode, text: string): AdfNode {
  switch (n.type) {
    case "listItem":
      return { ...n, content: [p(t(text)), ...(n.content ?? []).slice(1)] };
    case "taskItem":
      return { ...n, content: [t(text)] };
    default:
      return { ...n, content: [p(t(text))] };
  }
}

const noId = (n: AdfNode | undefined): unknown => {
  if (n === undefined) return undefined;
  const { localId: _, ...attrs } = n.attrs ?? {};
  return { ...n, attrs };
};

describe("random Jira descriptions with lists, task lists and tables", () => {
  const doc = fc
    .array(block, { minLength: 1, maxLength: 4 })
    .map((content): AdfNode => ({ type: "doc", content }))
    .filter((d) => units(d).length > 0);

  it("a tinyPM edit of one item, task or cell leaves every other node's ADF identical", () => {
    fc.assert(
      fc.property(doc, fc.nat(), words, (d, pick, w) => {
        const all = units(d);
        const path = all[pick % all.length] ?? [];
        const text = `Edited ${w}`;
        const want = setAt(d, path, (n) => edited(n, text));
        const next = jira.toTinypm(jiraItem(want)).description ?? "";
        const c = jira.composeDescription(jiraItem(d), story(next));
        expect(c?.rewritten).toBe(1);
        const out: AdfNode = { type: "doc", content: docFromPieces(c?.pieces ?? []).content };
        // The edited unit is new (Jira gives a new task an id of its own); the rest is as read.
        expect(noId(at(out, path))).toEqual(noId(at(want, path)));
        const same = (n: AdfNode): AdfNode => setAt(n, path, () => ({ type: "edited" }));
        expect(same(out)).toEqual(same({ type: "doc", content: want.content ?? [] }));
      }),
      { numRuns: 200 },
    );
  });
});

describe("random GitHub Markdown with task lists and tables", () => {
  /** A block as its lines, with which of them are units a person edits (items, body rows). */
  interface MdBlock {
    readonly lines: readonly string[];
    readonly units: readonly number[];
    readonly edit: (line: string, text: string) => string;
  }
  const mention = fc.tuple(words, word).map(([w, who]) => `${w} @${who} see #3 \`@${who}\``);
  const taskLines = fc.array(fc.tuple(fc.nat(2), fc.boolean(), mention), {
    minLength: 1,
    maxLength: 5,
  });
  const tasks: fc.Arbitrary<MdBlock> = taskLines.map((items) => {
    let depth = 0;
    const lines = items.map(([d, done, text], i) => {
      depth = i === 0 ? 0 : Math.min(d, depth + 1);
      return `${"  ".repeat(depth)}- [${done ? "x" : " "}] ${text}`;
    });
    return {
      lines,
      units: lines.map((_, i) => i),
      edit: (line, text) => line.replace(/\] .*$/u, `] ${text}`),
    };
  });
  const tableBlock: fc.Arbitrary<MdBlock> = fc
    .array(fc.tuple(words, mention), { minLength: 1, maxLength: 4 })
    .map((rows) => ({
      lines: ["| Step | Who |", "| --- | :-: |", ...rows.map(([a, b]) => `| ${a} | ${b} |`)],
      units: rows.map((_, i) => i + 2),
      edit: (line, text) => line.replace(/^\| [^|]*/u, `| ${text} `),
    }));
  const other: fc.Arbitrary<MdBlock> = fc.oneof(
    mention.map((m) => ({ lines: [m], units: [], edit: (l: string) => l })),
    word.map((w) => ({
      lines: ["```python", "@retry", `def ${w}(): # see #1`, "```"],
      units: [],
      edit: (l: string) => l,
    })),
    words.map((w) => ({ lines: [`<!-- ${w} @template -->`], units: [], edit: (l: string) => l })),
  );
  const body = fc
    .array(fc.oneof(tasks, tableBlock, other), { minLength: 1, maxLength: 5 })
    .filter((bs) => bs.some((b) => b.units.length > 0));

  it("a tinyPM edit of one task or row rewrites that item or row only, the rest as written", () => {
    fc.assert(
      fc.property(body, fc.nat(), words, (blocks, pick, w) => {
        const text = blocks.map((b) => b.lines.join("\n")).join("\n\n");
        const editable = blocks.flatMap((b, bi) => b.units.map((u) => [bi, u] as const));
        const [bi, u] = editable[pick % editable.length] ?? [0, 0];
        const next = blocks
          .map((b, i) =>
            b.lines.map((l, j) => (i === bi && j === u ? b.edit(l, `Edited ${w}`) : l)).join("\n"),
          )
          .join("\n\n");
        const target: WorkItem = { ...story(text), system: "github", status: "open" };
        const c = github.composeDescription(target, story(next));
        expect(c?.text).toBe(next);
        // Every other unit of the body is kept as written: only the edited line is new.
        expect(c).toMatchObject({ rewritten: 1, kept: markdownBlocks(text).length - 1 });
      }),
      { numRuns: 200 },
    );
  });
});
