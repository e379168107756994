import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { WorkItem } from "../core/model.js";
import { compileMapping } from "./compile.js";
import { loadMapping } from "./load.js";
import { markdownBlocks } from "./markdown-blocks.js";

const J = "\u2060";
const github = compileMapping(
  loadMapping(fileURLToPath(new URL("../../mappings/github.yaml", import.meta.url))),
);
const TEMPLATE = readFileSync(
  new URL("../../test/fixtures/rich-text/github-issue-template.md", import.meta.url),
  "utf8",
);

function item(description: string | undefined, over: Partial<WorkItem> = {}): WorkItem {
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
    ...over,
  };
}

describe("markdownBlocks", () => {
  it("gives the text back byte for byte, CRLF included", () => {
    for (const text of [TEMPLATE, TEMPLATE.replace(/\n/g, "\r\n"), "a\r\n\r\n```\r\nx\r\n```"])
      expect(markdownBlocks(text).join("")).toBe(text);
    expect(markdownBlocks(TEMPLATE).length).toBeGreaterThan(10);
  });

  it("cuts lists into their items (nested items are units of their own) and tables into rows", () => {
    const blocks = markdownBlocks(TEMPLATE);
    expect(blocks).toContain("- [x] Open the board\n");
    expect(blocks).toContain("- [ ] Rename a story to `🚀 launch`\n");
    expect(blocks).toContain("  - [ ] Press <kbd>Enter</kbd>\n");
    expect(blocks).toContain("| Firefox | fails  |\n");
  });
});

describe("composeDescription on GitHub", () => {
  it("keeps an unchanged issue template exactly as written", () => {
    const c = github.composeDescription(item(TEMPLATE), item(TEMPLATE));
    expect(c?.text).toBe(TEMPLATE);
    expect(c).toMatchObject({ rewritten: 0, removed: 0, lost: [] });
  });

  it("rewrites only the edited block; new mentions are inert, the person's stay live", () => {
    const edited = TEMPLATE.replace(
      "Saving a story with an emoji title fails; @alice saw it too, see #12.",
      "Saving a story with an emoji title fails; @alice and @carol saw it, see #12.",
    ).concat("\nAdded in tinyPM for @dave.\n");
    const c = github.composeDescription(item(TEMPLATE), item(edited));
    expect(c?.text).toBe(
      TEMPLATE.replace(
        "Saving a story with an emoji title fails; @alice saw it too, see #12.",
        `Saving a story with an emoji title fails; @alice and @${J}carol saw it, see #12.`,
      ).concat(`\nAdded in tinyPM for @${J}dave.\n`),
    );
    // Code, HTML comments and the footnote are untouched: no joiner lands in them.
    expect(c?.text?.includes(`@${J}retry`)).toBe(false);
    expect(c?.text?.includes(`@${J}maintainers`)).toBe(false);
    expect(c?.text?.includes(`@${J}bob`)).toBe(false);
    expect(c?.lost).toEqual([]);
  });

  it("rewrites one edited task item only: the other items and the nested task stay as written", () => {
    const edited = TEMPLATE.replace("- [x] Open the board", "- [x] Open the board as @erin");
    const c = github.composeDescription(item(TEMPLATE), item(edited));
    expect(c?.text).toBe(
      TEMPLATE.replace("- [x] Open the board", `- [x] Open the board as @${J}erin`),
    );
    // The list's three lines are three units (the nested task is one of its own): one rewritten.
    expect(c).toMatchObject({ rewritten: 1, removed: 0, lost: [] });
    expect(c?.kept).toBe(markdownBlocks(TEMPLATE).length - 1);
  });

  it("adds a task item and a table row where tinyPM put them", () => {
    const edited = TEMPLATE.replace(
      "  - [ ] Press <kbd>Enter</kbd>\n",
      "  - [ ] Press <kbd>Enter</kbd>\n- [ ] Check the title\n",
    ).replace("| Firefox | fails  |", "| Firefox | fails  |\n| Chrome | works |");
    const c = github.composeDescription(item(TEMPLATE), item(edited));
    expect(c?.text).toBe(edited);
    expect(c).toMatchObject({ kept: markdownBlocks(TEMPLATE).length, rewritten: 0, removed: 0 });
  });

  it("rewrites one edited table row only", () => {
    const edited = TEMPLATE.replace("| Firefox | fails  |", "| Firefox | fails on 128 |");
    const c = github.composeDescription(item(TEMPLATE), item(edited));
    expect(c?.text).toBe(edited);
    expect(c).toMatchObject({ kept: markdownBlocks(TEMPLATE).length - 1, rewritten: 1 });
  });

  it("writes a new description from nothing with every mention inert", () => {
    const c = github.composeDescription(item(undefined), item("hi @ana\n\n`@code`"));
    expect(c?.text).toBe(`hi @${J}ana\n\n\`@code\``);
  });

  it("changes only the time summary when only time entries moved", () => {
    const entry = { user: { login: "ann", name: "Ann" }, date: "2024-01-02", hours: 2 };
    const next = item(TEMPLATE, { timeEntries: [entry] });
    const c = github.composeDescription(item(TEMPLATE), next);
    expect(c?.text?.startsWith(TEMPLATE)).toBe(true);
    expect(c?.text).toContain("<!-- tinypm-sync:time -->");
    const again = github.composeDescription(item(c?.text), next);
    expect(again?.text).toBe(c?.text);
  });
});
