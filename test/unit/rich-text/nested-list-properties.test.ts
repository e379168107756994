/**
 * GitHub Markdown with nested lists: every list item, at any depth, is a unit of its own. A tinyPM
 * edit of one nested item (bullet, ordered or task) rewrites that line only; its siblings and
 * parents keep their exact Markdown (markers, indentation, `[x]`, inline formatting, HTML
 * comments), and mention hygiene applies to the new line even where it is indented four spaces.
 */
import fc from "fast-check";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../../src/core/model.js";
import { compileMapping } from "../../../src/mapping/compile.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { markdownBlocks } from "../../../src/mapping/markdown-blocks.js";

const J = "\u2060";
const github = compileMapping(
  loadMapping(fileURLToPath(new URL("../../../mappings/github.yaml", import.meta.url))),
);

function story(description: string): WorkItem {
  return {
    system: "github",
    kind: "story",
    id: "1",
    title: "t",
    description,
    status: "open",
    assignees: [],
    labels: [],
    comments: [],
    timeEntries: [],
    metadata: {},
  };
}

const word = fc.stringMatching(/^[A-Za-z][a-z0-9]{0,7}$/);
const words = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(" "));
const inline = fc.oneof(
  words,
  words.map((w) => `**${w}**`),
  words.map((w) => `_${w}_ \`@${w.split(" ")[0] ?? "x"}\``),
  fc.tuple(words, word).map(([w, who]) => `${w} @${who}`),
  words.map((w) => `${w} <!-- ${w} -->`),
);

type Kind = "bullet" | "ordered" | "task";

let serial = 0;
/** A list down to depth 3, as lines with their marker and the indentation its parent needs. */
function listLines(depth: number): fc.Arbitrary<string[]> {
  const kind = fc.constantFrom<Kind>("bullet", "ordered", "task");
  const item = fc.tuple(
    inline,
    fc.boolean(),
    depth < 3 ? fc.option(fc.constant(depth + 1), { nil: undefined }) : fc.constant(undefined),
  );
  return fc
    .tuple(kind, fc.constantFrom("-", "*", "+"), fc.array(item, { minLength: 1, maxLength: 3 }))
    .chain(([k, bullet, items]) =>
      fc.tuple(
        ...items.map(([text, done, sub], i) => {
          // Every item starts with a word of its own (two equal lines are each other's twins).
          const own = `i${++serial} ${text}`;
          const marker = k === "ordered" ? `${i + 1}.` : bullet;
          const head = `${marker} ${k === "task" ? `[${done ? "x" : " "}] ` : ""}${own}`;
          const pad = " ".repeat(marker.length + 1);
          const children = sub === undefined ? fc.constant<string[]>([]) : listLines(sub);
          return children.map((ls) => [head, ...ls.map((l) => `${pad}${l}`)]);
        }),
      ),
    )
    .map((groups) => groups.flat());
}

const body = fc
  .array(
    fc.oneof(
      { arbitrary: listLines(0), weight: 3 },
      words.map((w) => [`Some ${w} text.`]),
      word.map((w) => ["```python", "@retry", `def ${w}(): # see #1`, "```"]),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((blocks) => blocks.map((b) => b.join("\n")).join("\n\n") + "\n");

/** Lines that are list items (a marker after the indentation). */
function itemLines(text: string): number[] {
  return text
    .split("\n")
    .flatMap((l, i) => (/^ *(?:[-*+]|\d+\.) /u.test(l) && !inFence(text, i) ? [i] : []));
}

function inFence(text: string, at: number): boolean {
  let open = false;
  for (const [i, l] of text.split("\n").entries()) {
    if (i === at) return open;
    if (l.startsWith("```")) open = !open;
  }
  return false;
}

function nested(text: string): number[] {
  return itemLines(text).filter((i) => /^ +/u.test(text.split("\n")[i] ?? ""));
}

describe("GitHub nested list items as units", () => {
  it("every list item, at any depth, is a unit of its own", () => {
    fc.assert(
      fc.property(body, (text) => {
        const units = markdownBlocks(text);
        // Each item's line starts a unit of its own (blank lines after it go with it).
        const firsts = units.map((u) => u.split("\n")[0]);
        for (const i of itemLines(text)) expect(firsts).toContain(text.split("\n")[i]);
        expect(units.filter((u) => itemLines(u).length > 1)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it("a tinyPM edit of one nested item rewrites that line only, every other line byte-identical", () => {
    fc.assert(
      fc.property(
        body.filter((t) => nested(t).length > 0),
        fc.nat(),
        word,
        (text, pick, who) => {
          const candidates = nested(text);
          const at = candidates[pick % candidates.length] ?? 0;
          // The parent item mentions @boss (a person's live mention, outside the edited unit).
          const lines = text.split("\n");
          const depth = (l: string): number => /^ */u.exec(l)?.[0].length ?? 0;
          let parent = at - 1;
          while (parent > 0 && depth(lines[parent] ?? "") >= depth(lines[at] ?? "")) parent--;
          lines[parent] = `${lines[parent] ?? ""} cc @boss`;
          const old = lines[at] ?? "";
          // A mention already live in the replaced line stays live (description.ts): the new
          // names must be new to this line for both to come out inert.
          fc.pre(
            ![who, "boss"].some((n) => new RegExp(`@${n}(?![\\p{L}\\p{N}_-])`, "u").test(old)),
          );
          // The item's text after its marker (and checkbox) gets new mentions and words.
          const head = /^( *(?:[-*+]|\d+\.) (?:\[[ x]\] )?)/u.exec(old)?.[1] ?? "";
          const edited = `${head}Edited for @boss and @${who}`;
          const before = lines.join("\n");
          const next = lines.map((l, i) => (i === at ? edited : l)).join("\n");
          const c = github.composeDescription(story(before), story(next));
          // Only the new line is tinyPM's text: its mentions are inert, the parent's stays live.
          const want = lines.map((l, i) =>
            i === at ? `${head}Edited for @${J}boss and @${J}${who}` : l,
          );
          expect(c?.text?.split("\n")).toEqual(want);
          expect(c).toMatchObject({
            rewritten: 1,
            removed: 0,
            kept: markdownBlocks(before).length - 1,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps a task list's markers, indentation and comments around an edited nested task", () => {
    const text = [
      "1. Prepare <!-- step -->",
      "   * [x] **clone** the repo",
      "     - [ ] ask @alice",
      "         for access",
      "   * [ ] run `npm ci`",
      "2. Ship it",
      "",
    ].join("\n");
    const next = text.replace("- [ ] ask @alice", "- [x] ask @alice and @bob");
    const c = github.composeDescription(story(text), story(next));
    expect(c?.text).toBe(text.replace("- [ ] ask @alice", `- [x] ask @alice and @${J}bob`));
    expect(c).toMatchObject({ rewritten: 1, kept: markdownBlocks(text).length - 1 });
    expect(markdownBlocks(text)).toEqual([
      "1. Prepare <!-- step -->\n",
      "   * [x] **clone** the repo\n",
      "     - [ ] ask @alice\n         for access\n",
      "   * [ ] run `npm ci`\n",
      "2. Ship it\n",
    ]);
  });
});
