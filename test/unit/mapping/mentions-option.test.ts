/**
 * The mapping's `mentions: matched`: a tinyPM `@login` of a matched user becomes a real mention on
 * the target (GitHub `@their-login`, a Jira mention node with the accountId) and reads back as
 * `@login`; unmatched names stay inert; code is never touched; the round trip is stable.
 */
import { describe, expect, it } from "vitest";
import { markdownToAdf } from "../../../src/adapters/jira/adf.js";
import { adfToMarkdown } from "../../../src/adapters/jira/adf-render.js";
import type { Comment, UserRef } from "../../../src/core/model.js";
import { compileMapping, type CompiledMapping } from "../../../src/mapping/compile.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { matchUsers } from "../../../src/mapping/user-match.js";
import { mappingPath, readBack, sampleStory } from "./fixtures.js";

const J = "\u2060";
const tinypmUsers: UserRef[] = [
  { id: "1", login: "alice", name: "Alice Smith", email: "alice@example.com" },
  { id: "2", login: "bob", name: "Bob Jones", email: "bob@example.com" },
];
const TARGETS = {
  github: [{ id: "alice-gh", login: "alice-gh", email: "alice@example.com" }],
  jira: [{ id: "acc-alice", name: "Alice Andersson", email: "alice@example.com" }],
};

function mapping(target: "github" | "jira", mentions?: "inert" | "matched"): CompiledMapping {
  const { table } = matchUsers({ tinypmUsers, targetUsers: TARGETS[target] });
  const spec = loadMapping(mappingPath(`${target}.yaml`));
  return compileMapping(mentions === undefined ? spec : { ...spec, mentions }, { users: table });
}

const TEXT = "Ping @alice and @bob, mail alice@example.com, see `@alice` and\n\n```\n@alice\n```";
const comment = (body: string): Comment => ({
  id: "c1",
  author: { login: "alice" },
  createdAt: "2026-01-01T10:00:00",
  body,
});

describe("mentions: matched on GitHub", () => {
  const m = mapping("github", "matched");

  it("links matched users, keeps the others inert, leaves code alone", () => {
    const draft = m.toTarget(sampleStory({ description: TEXT }));
    expect(draft.description).toBe(
      `Ping @alice-gh and @${J}bob, mail alice@example.com, see \`@alice\` and\n\n\`\`\`\n@alice\n\`\`\``,
    );
    expect(m.commentToTarget(comment("thanks @alice")).body).toMatch(/\n\nthanks @alice-gh$/);
  });

  it("reads a mention of the matched login back as the tinyPM login, stably", () => {
    const story = sampleStory({ description: TEXT });
    const draft = m.toTarget(story);
    const back = m.toTinypm(readBack(m, draft, story));
    expect(back.description).toBe(TEXT);
    // Again: the same text goes out, so a sync finds nothing to write.
    expect(m.toTarget({ ...story, description: back.description }).description).toBe(
      draft.description,
    );
    // A person's `@Alice-GH` on GitHub reads as tinyPM's `@alice`; an unknown login stays.
    const person = readBack(m, draft, story, { description: "cc @Alice-GH and @carol" });
    expect(m.toTinypm(person).description).toBe("cc @alice and @carol");
    const c = m.commentToTinypm({ ...comment("hi @alice-gh"), author: { id: "alice-gh" } });
    expect(c.body).toBe("hi @alice");
  });

  it("without the option nobody is pinged (the default)", () => {
    const inert = mapping("github");
    expect(inert.toTarget(sampleStory({ description: "Ping @alice" })).description).toBe(
      `Ping @${J}alice`,
    );
  });
});

describe("mentions: matched on Jira", () => {
  const m = mapping("jira", "matched");

  it("turns a matched @login into a mention node with the accountId", () => {
    const draft = m.toTarget(sampleStory({ description: TEXT }));
    const adf = markdownToAdf(draft.description ?? "");
    expect(adf.content[0]?.content).toEqual([
      { type: "text", text: "Ping " },
      { type: "mention", attrs: { id: "acc-alice", text: "@Alice Andersson" } },
      { type: "text", text: " and @bob, mail alice@example.com, see " },
      { type: "text", text: "@alice", marks: [{ type: "code" }] },
      { type: "text", text: " and" },
    ]);
    expect(adf.content[1]).toEqual({
      type: "codeBlock",
      content: [{ type: "text", text: "@alice" }],
    });
  });

  it("reads a mention node of a matched user back as @login, others as their name, stably", () => {
    const story = sampleStory({ description: TEXT });
    const draft = m.toTarget(story);
    const stored = adfToMarkdown(markdownToAdf(draft.description ?? ""));
    expect(stored).toBe(draft.description);
    expect(m.toTinypm(readBack(m, draft, story, { description: stored })).description).toBe(TEXT);
    const person = adfToMarkdown({
      type: "doc",
      content: [
        {
          type: "paragraph",
          content: [
            { type: "mention", attrs: { id: "acc-alice", text: "@Alice Andersson" } },
            { type: "text", text: " and " },
            { type: "mention", attrs: { id: "acc-zed", text: "@Zed Zero" } },
          ],
        },
      ],
    });
    expect(m.toTinypm(readBack(m, draft, story, { description: person })).description).toBe(
      "@alice and @Zed Zero",
    );
  });

  it("without the option a mention node reads as the person's name, and @login stays text", () => {
    const inert = mapping("jira");
    const draft = inert.toTarget(sampleStory({ description: "Ping @alice" }));
    expect(draft.description).toBe("Ping @alice");
    const person = "[@Alice Andersson](mention:acc-alice) ok";
    expect(
      inert.toTinypm(readBack(inert, draft, sampleStory(), { description: person })).description,
    ).toBe("@Alice Andersson ok");
  });
});
