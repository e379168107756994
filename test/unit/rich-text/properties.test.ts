/**
 * Property tests: a tinyPM edit touching one block leaves every other block identical on the
 * target (random ADF from the node types people use on Jira; random CommonMark + GFM Markdown on
 * GitHub), and a title edit never changes the body.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { docFromPieces } from "../../../src/adapters/jira/adf-blocks.js";
import { markdownToAdf, type AdfNode } from "../../../src/adapters/jira/adf.js";
import type { WorkItem } from "../../../src/core/model.js";
import { planActions } from "../../../src/sync/plan/plan.js";
import { targetSnapshot, tinypmSnapshot } from "../../../src/sync/plan/snapshot.js";
import { bundledMapping, jiraItem, p, t, tinypmStory as story, word } from "./rich-text-kit.js";

const jira = bundledMapping("jira");
const github = bundledMapping("github");
const words = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(" "));

const inline: fc.Arbitrary<AdfNode> = fc.oneof(
  words.map((w) => t(w)),
  words.map((w) => t(w, [{ type: "strong" }])),
  words.map((w) => t(w, [{ type: "textColor", attrs: { color: "#ff5630" } }])),
  words.map((w) =>
    t(w, [{ type: "link", attrs: { href: `https://x.example/${w.length}`, title: w } }]),
  ),
  word.map((w) => ({ type: "mention", attrs: { id: `acc-${w}`, text: `@${w}` } })),
  word.map((w) => ({ type: "status", attrs: { text: w.toUpperCase(), color: "blue" } })),
  fc.constant({ type: "date", attrs: { timestamp: "1767225600000" } }),
  fc.constant({ type: "emoji", attrs: { shortName: ":rocket:", text: "🚀" } }),
  word.map((w) => ({ type: "inlineCard", attrs: { url: `https://x.example/browse/${w}` } })),
);
const para = fc.array(inline, { minLength: 1, maxLength: 4 }).map((c) => p(t("x "), ...c));
const cell = (type: string) => words.map((w) => ({ type, content: [p(t(w))] }));
const block: fc.Arbitrary<AdfNode> = fc.oneof(
  para,
  words.map((w) => ({ type: "heading", attrs: { level: 2 }, content: [t(w)] })),
  words.map((w) => ({
    type: "codeBlock",
    attrs: { language: "python" },
    content: [t(`@retry\ndef ${w.replace(/ /g, "_")}(): pass`)],
  })),
  fc
    .tuple(fc.constantFrom("info", "warning", "note"), para)
    .map(([panelType, c]) => ({ type: "panel", attrs: { panelType }, content: [c] })),
  fc
    .tuple(words, para, para)
    .map(([title, a, b]) => ({ type: "expand", attrs: { title }, content: [a, b] })),
  fc
    .tuple(cell("tableHeader"), cell("tableHeader"), cell("tableCell"), cell("tableCell"))
    .map(([a, b, c, d]) => ({
      type: "table",
      content: [
        { type: "tableRow", content: [a, b] },
        { type: "tableRow", content: [c, d] },
      ],
    })),
  fc.array(fc.tuple(words, fc.boolean()), { minLength: 1, maxLength: 3 }).map((items) => ({
    type: "taskList",
    content: items.map(([w, done]) => ({
      type: "taskItem",
      attrs: { state: done ? "DONE" : "TODO" },
      content: [t(w)],
    })),
  })),
  fc.array(words, { minLength: 1, maxLength: 3 }).map((items) => ({
    type: "bulletList",
    content: items.map((w) => ({ type: "listItem", content: [p(t(w))] })),
  })),
);

describe("random Jira descriptions", () => {
  const doc = fc
    .array(block, { minLength: 1, maxLength: 6 })
    .map((content) => ({ type: "doc", version: 1, content }));

  it("a tinyPM edit of one block leaves every other block's ADF identical", () => {
    fc.assert(
      fc.property(doc, fc.nat(), words, (d, at, edit) => {
        const blocks = d.content;
        const i = at % blocks.length;
        // Each block as tinyPM reads it (a mention as `@Name`, the mapping's reading).
        const texts = blocks.map(
          (b) => jira.toTinypm(jiraItem({ type: "doc", content: [b] })).description ?? "",
        );
        texts[i] = `Edited ${edit}`;
        const c = jira.composeDescription(jiraItem(d), story(texts.join("\n\n")));
        const out = docFromPieces(c?.pieces ?? []).content;
        expect(out).toHaveLength(blocks.length);
        out.forEach((node, j) => {
          expect(node).toEqual(j === i ? markdownToAdf(`Edited ${edit}`).content[0] : blocks[j]);
        });
      }),
      { numRuns: 150 },
    );
  });

  it("a title edit never changes the body", () => {
    fc.assert(
      fc.property(doc, words, (d, title) => {
        const g = jiraItem(d);
        const before = story(g.description ?? "");
        const plan = planActions({
          job: { name: "j", direction: "both", conflicts: "manual", onDelete: "close" },
          mapping: jira,
          targetSystem: "jira",
          tinypm: { items: [story(g.description ?? "", `New ${title}`)], complete: true },
          target: { items: [g], complete: true },
          links: [
            {
              kind: "story",
              tinypmId: "1",
              targetId: "WID-1",
              origin: "tinypm",
              baseTinypm: tinypmSnapshot(jira, before),
              baseTarget: targetSnapshot(jira, g),
              syncedAt: "2024-01-01T00:00:00Z",
            },
          ],
          now: new Date("2024-01-02T00:00:00Z"),
        });
        const a = plan.actions[0];
        expect(a?.type).toBe("update");
        expect(a?.type === "update" && Object.keys(a.targetSet)).toEqual(["title"]);
      }),
      { numRuns: 60 },
    );
  });
});

describe("random GitHub Markdown (CommonMark + GFM)", () => {
  const mdBlock: fc.Arbitrary<string> = fc.oneof(
    fc
      .tuple(words, word, fc.nat(99))
      .map(([w, who, n]) => `${w} @${who} see #${n} and \`@${who}\``),
    words.map((w) => `## ${w}`),
    word.map((w) => `\`\`\`python\n@retry\ndef ${w}(): # see #1\n    pass\n\`\`\``),
    word.map((w) => `    indented @${w} #2`),
    fc
      .array(fc.tuple(words, fc.boolean()), { minLength: 1, maxLength: 3 })
      .map((items) => items.map(([w, done]) => `- [${done ? "x" : " "}] ${w}`).join("\n")),
    fc.tuple(words, words).map(([a, b]) => `| A | B |\n| --- | --- |\n| ${a} | ${b} @x |`),
    words.map((w) => `<!-- ${w} @template -->`),
    fc
      .tuple(words, words)
      .map(([s, b]) => `<details>\n<summary>${s}</summary>\n\n${b} @inner\n\n</details>`),
    words.map((w) => `> quoted ${w} @q`),
    fc.tuple(words, word).map(([w, u]) => `[${w}](https://x.example/#${u}) [^1]`),
  );

  it("a tinyPM edit of one block leaves every other block byte for byte as written", () => {
    fc.assert(
      fc.property(
        fc.array(mdBlock, { minLength: 1, maxLength: 7 }),
        fc.nat(),
        words,
        (blocks, at, edit) => {
          const i = at % blocks.length;
          const body = blocks.join("\n\n");
          const target: WorkItem = { ...story(body), system: "github", status: "open" };
          const next = [...blocks];
          next[i] = `Edited ${edit}`;
          const c = github.composeDescription(target, story(next.join("\n\n")));
          expect(c?.text).toBe(next.join("\n\n"));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a title edit never changes the body", () => {
    fc.assert(
      fc.property(fc.array(mdBlock, { minLength: 1, maxLength: 7 }), words, (blocks, title) => {
        const body = blocks.join("\n\n");
        const g: WorkItem = {
          ...github.toTarget(story(body)),
          system: "github",
          id: "101",
          description: body,
          metadata: github.toTarget(story(body)).metadata ?? {},
          comments: [],
          timeEntries: [],
          marker: { job: "j", origin: "tinypm", originKind: "story", originId: "1" },
        };
        const plan = planActions({
          job: { name: "j", direction: "both", conflicts: "manual", onDelete: "close" },
          mapping: github,
          targetSystem: "github",
          tinypm: { items: [story(body, `New ${title}`)], complete: true },
          target: { items: [g], complete: true },
          links: [
            {
              kind: "story",
              tinypmId: "1",
              targetId: "101",
              origin: "tinypm",
              baseTinypm: tinypmSnapshot(github, story(body)),
              baseTarget: targetSnapshot(github, g),
              syncedAt: "2024-01-01T00:00:00Z",
            },
          ],
          now: new Date("2024-01-02T00:00:00Z"),
        });
        const a = plan.actions[0];
        expect(a?.type === "update" && Object.keys(a.targetSet)).toEqual(["title"]);
      }),
      { numRuns: 60 },
    );
  });
});
