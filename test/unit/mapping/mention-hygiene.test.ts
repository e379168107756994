/**
 * Mention and reference hygiene applies only to text that comes from tinyPM, never inside code
 * (fenced with backticks or tildes, indented, inline), on both targets, for descriptions and for
 * comments, in both directions; a person's own text on the target is read as written.
 */
import { describe, expect, it } from "vitest";
import { markdownToAdf, type AdfNode } from "../../../src/adapters/jira/adf.js";
import { adfToMarkdown } from "../../../src/adapters/jira/adf-render.js";
import type { Comment, UserRef } from "../../../src/core/model.js";
import { compileMapping, type CompiledMapping } from "../../../src/mapping/compile.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { matchUsers } from "../../../src/mapping/user-match.js";
import { mappingPath, readBack, sampleStory } from "./fixtures.js";

const J = "\u2060";
const tinypmUsers: UserRef[] = [
  { id: "1", login: "alice", name: "Alice Smith", email: "alice@example.com" },
];
const TARGETS = {
  github: [{ id: "alice-gh", login: "alice-gh", email: "alice@example.com" }],
  jira: [{ id: "acc-alice", name: "Alice Andersson", email: "alice@example.com" }],
};
type Target = keyof typeof TARGETS;
type Mentions = "inert" | "matched";

function mapping(target: Target, mentions: Mentions): CompiledMapping {
  const { table } = matchUsers({ tinypmUsers, targetUsers: TARGETS[target] });
  return compileMapping(
    { ...loadMapping(mappingPath(`${target}.yaml`)), mentions },
    { users: table },
  );
}

/** tinyPM text with a live mention and reference, then the same inside every kind of code. */
const CODE = [
  "    indented @alice #4",
  "- item `@alice #4`",
  "~~~\n@alice #4\n~~~",
  "```python\n@alice\ndef go():  # 4\n    pass\n```",
].join("\n\n");
const TINYPM = `See #4 and @alice:\n\n${CODE}`;

const tinypmComment = (body: string): Comment => ({
  id: "c1",
  author: { login: "alice" },
  createdAt: "2026-01-01T10:00:00",
  body,
});

/** The live part as each target and option writes it; the code always as written. */
const LIVE: Record<Target, Record<Mentions, string>> = {
  github: { inert: `See #${J}4 and @${J}alice:`, matched: `See #${J}4 and @alice-gh:` },
  jira: {
    inert: "See #4 and @alice:",
    matched: "See #4 and [@Alice Andersson](mention:acc-alice):",
  },
};

describe.each(["github", "jira"] as const)("tinyPM text to %s", (target) => {
  describe.each(["inert", "matched"] as const)("mentions: %s", (mentions) => {
    const m = mapping(target, mentions);

    it("a description: the live mention and reference are handled, code is left as written", () => {
      expect(m.toTarget(sampleStory({ description: TINYPM })).description).toBe(
        `${LIVE[target][mentions]}\n\n${CODE}`,
      );
    });

    it("a comment: the same, after the author line", () => {
      const body = m.commentToTarget(tinypmComment(TINYPM)).body;
      expect(body.endsWith(`\n\n${LIVE[target][mentions]}\n\n${CODE}`)).toBe(true);
    });

    it("reads its own text back byte for byte", () => {
      const story = sampleStory({ description: TINYPM });
      const draft = m.toTarget(story);
      expect(m.toTinypm(readBack(m, draft, story)).description).toBe(TINYPM);
    });
  });
});

describe("Jira code from tinyPM", () => {
  it("no mention node or link is made inside Jira code", () => {
    const draft = mapping("jira", "matched").toTarget(sampleStory({ description: TINYPM }));
    const doc = markdownToAdf(draft.description ?? "");
    const mentions: AdfNode[] = [];
    const walk = (n: AdfNode): void => {
      if (n.type === "mention") mentions.push(n);
      (n.content ?? []).forEach(walk);
    };
    doc.content.forEach(walk);
    // Only the one outside code; the inline code keeps its mark and its text.
    expect(mentions).toEqual([
      { type: "mention", attrs: { id: "acc-alice", text: "@Alice Andersson" } },
    ]);
    expect(JSON.stringify(doc)).toContain(
      JSON.stringify({ type: "text", text: "@alice #4", marks: [{ type: "code" }] }),
    );
  });
});

describe("a person's text on the target, read into tinyPM", () => {
  it("GitHub: a matched login outside code reads as the tinyPM login; inside code it stays", () => {
    const person = "cc @alice-gh `@alice-gh`\n\n```\n@alice-gh #3\n```\n\n    @alice-gh";
    const expected = "cc @alice `@alice-gh`\n\n```\n@alice-gh #3\n```\n\n    @alice-gh";
    for (const mentions of ["inert", "matched"] as const) {
      const m = mapping("github", mentions);
      const story = sampleStory();
      const item = readBack(m, m.toTarget(story), story, { description: person });
      expect(m.toTinypm(item).description).toBe(mentions === "matched" ? expected : person);
      const c = m.commentToTinypm({ ...tinypmComment(person), author: { id: "alice-gh" } });
      expect(c.body).toBe(mentions === "matched" ? expected : person);
    }
  });

  it("Jira: a mention node reads as a name or login; the same spelling inside code stays", () => {
    const person = adfToMarkdown({
      type: "doc",
      content: [
        {
          type: "paragraph",
          content: [
            { type: "mention", attrs: { id: "acc-alice", text: "@Alice Andersson" } },
            { type: "text", text: " see " },
            {
              type: "text",
              text: "[@Alice Andersson](mention:acc-alice)",
              marks: [{ type: "code" }],
            },
          ],
        },
        {
          type: "codeBlock",
          content: [{ type: "text", text: "[@Alice Andersson](mention:acc-alice) @alice" }],
        },
      ],
    });
    const code =
      " see `[@Alice Andersson](mention:acc-alice)`\n\n```\n[@Alice Andersson](mention:acc-alice) @alice\n```";
    for (const mentions of ["inert", "matched"] as const) {
      const m = mapping("jira", mentions);
      const name = mentions === "matched" ? "@alice" : "@Alice Andersson";
      const story = sampleStory();
      const item = readBack(m, m.toTarget(story), story, { description: person });
      expect(m.toTinypm(item).description).toBe(`${name}${code}`);
      const c = m.commentToTinypm({ ...tinypmComment(person), author: { id: "acc-alice" } });
      expect(c.body).toBe(`${name}${code}`);
    }
  });
});
