/** Jira descriptions: a tinyPM edit rewrites only the blocks it changed; the rest keep their ADF. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { docFromPieces, richDescriptionOf } from "../../../src/adapters/jira/adf-blocks.js";
import type { AdfNode } from "../../../src/adapters/jira/adf.js";
import { adfToMarkdown } from "../../../src/adapters/jira/adf-render.js";
import type { WorkItem } from "../../../src/core/model.js";
import { planActions } from "../../../src/sync/plan/plan.js";
import type { UpdateAction } from "../../../src/sync/plan/plan-types.js";
import type { RichTextPolicy } from "../../../src/sync/plan/plan-input.js";
import { targetSnapshot, tinypmSnapshot } from "../../../src/sync/plan/snapshot.js";
import { bundledMapping, jiraItem as richJiraItem } from "./rich-text-kit.js";

const mapping = bundledMapping("jira");
const FIXTURE = JSON.parse(
  readFileSync(new URL("../../fixtures/rich-text/jira-description.json", import.meta.url), "utf8"),
) as AdfNode;
/** The description as Jira's Markdown (mentions keep their accountId) and as tinyPM reads it. */
const JIRA_TEXT = adfToMarkdown(FIXTURE);

const jiraItem = (doc: AdfNode): WorkItem => richJiraItem(doc, "Rollout");

function story(description: string): WorkItem {
  return {
    ...jiraItem(FIXTURE),
    system: "tinypm",
    id: "1",
    description,
    status: "PENDING",
    richDescription: undefined,
    marker: undefined,
  };
}

const TEXT = mapping.toTinypm(jiraItem(FIXTURE)).description ?? "";
/** tinyPM's text of the first mention paragraph, in Jira's Markdown. */
const inJira = (tinypm: string): string =>
  tinypm.replace("Owner: @Alice Meyer", "Owner: [@Alice Meyer](mention:5b10ac8d82e05b22cc7d4ef5)");

const content = (doc: AdfNode): readonly AdfNode[] => doc.content ?? [];
const TABLE = content(FIXTURE).findIndex((n) => n.type === "table");
const TASKS = content(FIXTURE).findIndex((n) => n.type === "taskList");
const p = (text: string): AdfNode => ({ type: "paragraph", content: [{ type: "text", text }] });
/** An edit of the table cell holding a mention (tinyPM's text cannot carry the mention). */
const MENTION_CELL_EDIT = TEXT.replace(
  "| Drain queue | @Bob    |",
  "| Drain queue | @Bob, @Carol |",
);

describe("composing a tinyPM edit onto a Jira description", () => {
  it("reads every block with what rewriting it would lose", () => {
    const rich = richDescriptionOf(FIXTURE);
    expect(rich?.blocks.map((b) => b.lost)).toEqual([
      [],
      ["mention @Alice Meyer", "date 2026-01-01", "status lozenge IN PROGRESS", "emoji :rocket:"],
      ["panel (warning)", "text colour #ff5630"],
      ["table (3×2)", "table cell", "mention @Bob"],
      [],
      ['expand "Rollback"'],
      ["task list"],
      ['link title "Runbook v2"', "smart link https://example.atlassian.net/browse/OPS-7"],
    ]);
  });

  it("appends a line as one new paragraph; every other node stays as Jira holds it", () => {
    const c = mapping.composeDescription(jiraItem(FIXTURE), story(`${TEXT}\n\nOne more line.`));
    expect(c).toMatchObject({ kept: 8, rewritten: 0, lost: [] });
    const doc = docFromPieces(c?.pieces ?? []);
    expect(doc.content).toEqual([
      ...content(FIXTURE),
      { type: "paragraph", content: [{ type: "text", text: "One more line." }] },
    ]);
  });

  it("rewrites an edited paragraph only, keeping the table, panel, expand and tasks", () => {
    const next = TEXT.replace("## Rollout plan", "## Rollout plan (v2)");
    const c = mapping.composeDescription(jiraItem(FIXTURE), story(next));
    expect(c).toMatchObject({ kept: 7, rewritten: 1, lost: [] });
    const doc = docFromPieces(c?.pieces ?? []);
    expect(doc.content.slice(1)).toEqual(content(FIXTURE).slice(1));
    expect(adfToMarkdown(doc)).toBe(inJira(next));
  });

  it("rewrites one edited table cell only: every other row and cell keeps its ADF", () => {
    const next = TEXT.replace("| Deploy      | CI      |", "| Deploy      | CI/CD   |");
    const c = mapping.composeDescription(jiraItem(FIXTURE), story(next));
    // 7 blocks, 2 rows and the row's first cell kept; one cell rewritten; nothing lost.
    expect(c).toMatchObject({ kept: 10, rewritten: 1, removed: 0, lost: [] });
    const doc = docFromPieces(c?.pieces ?? []);
    const table = content(FIXTURE)[TABLE] ?? { type: "table" };
    const rows = table.content ?? [];
    expect(doc.content).toEqual(
      content(FIXTURE).map((n, i) =>
        i !== TABLE
          ? n
          : {
              ...table,
              content: [
                rows[0],
                rows[1],
                {
                  type: "tableRow",
                  content: [rows[2]?.content?.[0], { type: "tableCell", content: [p("CI/CD")] }],
                },
              ],
            },
      ),
    );
  });

  it("says exactly which cell's rich content an edit would lose", () => {
    const c = mapping.composeDescription(jiraItem(FIXTURE), story(MENTION_CELL_EDIT));
    expect(c?.lost).toEqual([{ excerpt: "@Bob", what: ["cell (row 2, column 2): mention @Bob"] }]);
  });

  it("adds a table row where tinyPM put it, with the table's padding or tinyPM's own", () => {
    const next = TEXT.replace(
      "| Drain queue | @Bob    |\n",
      "| Drain queue | @Bob    |\n| Smoke tests | QA team lead |\n",
    );
    const c = mapping.composeDescription(jiraItem(FIXTURE), story(next));
    expect(c).toMatchObject({ rewritten: 0, lost: [] });
    const rows = docFromPieces(c?.pieces ?? []).content[TABLE]?.content ?? [];
    const old = content(FIXTURE)[TABLE]?.content ?? [];
    expect(rows).toEqual([
      old[0],
      old[1],
      {
        type: "tableRow",
        content: [
          { type: "tableCell", content: [p("Smoke tests")] },
          { type: "tableCell", content: [p("QA team lead")] },
        ],
      },
      old[2],
    ]);
  });

  it("ticks one task: the other task keeps its id, the list keeps its own", () => {
    const next = TEXT.replace("- [ ] Update the runbook", "- [x] Update the runbook");
    const c = mapping.composeDescription(jiraItem(FIXTURE), story(next));
    expect(c).toMatchObject({ rewritten: 1, lost: [] });
    const tasks = docFromPieces(c?.pieces ?? []).content[TASKS];
    const old = content(FIXTURE)[TASKS];
    expect(tasks?.attrs).toEqual(old?.attrs);
    expect(tasks?.content?.[0]).toEqual(old?.content?.[0]);
    expect(tasks?.content?.[1]).toMatchObject({
      type: "taskItem",
      attrs: { state: "DONE" },
      content: [{ type: "text", text: "Update the runbook" }],
    });
  });
});

function planWith(
  policy: RichTextPolicy,
  next: string,
  resolved?: "tinypm" | "target",
  /** What the target holds now, in tinyPM terms, when not the fixture (a rerun's target). */
  onTarget?: string,
): UpdateAction {
  const before = story(onTarget ?? TEXT);
  const g =
    onTarget === undefined
      ? jiraItem(FIXTURE)
      : jiraItem(
          docFromPieces(
            mapping.composeDescription(jiraItem(FIXTURE), story(onTarget))?.pieces ?? [],
          ),
        );
  const plan = planActions({
    job: { name: "j", direction: "both", conflicts: "manual", onDelete: "close", richText: policy },
    mapping,
    targetSystem: "jira",
    tinypm: { items: [story(next)], complete: true },
    target: { items: [g], complete: true },
    links: [
      {
        kind: "story",
        tinypmId: "1",
        targetId: "WID-1",
        origin: "tinypm",
        baseTinypm: tinypmSnapshot(mapping, before),
        baseTarget: targetSnapshot(mapping, g),
        syncedAt: "2024-01-01T00:00:00Z",
      },
    ],
    resolved:
      resolved === undefined ? undefined : new Map([["story:1", { description: resolved }]]),
    now: new Date("2024-01-02T00:00:00Z"),
  });
  const a = plan.actions[0];
  if (a?.type !== "update") throw new Error(`expected an update, got ${a?.type}`);
  return a;
}

describe("the richText policy on a change that cannot be placed", () => {
  const cellEdit = MENTION_CELL_EDIT;

  it("merge (default): parks the description as a conflict and writes nothing", () => {
    const a = planWith("merge", cellEdit);
    expect(a.targetSet).toEqual({});
    expect(a.tinypmSet).toEqual({});
    expect(a.conflicts).toEqual([
      expect.objectContaining({ field: "description", resolution: "parked" }),
    ]);
    expect(a.descriptions?.[0]?.rich).toMatchObject({ outcome: "parked", kept: 10, rewritten: 1 });
    expect(a.descriptions?.[0]?.rich?.lost[0]?.what).toEqual([
      "cell (row 2, column 2): mention @Bob",
    ]);
  });

  it("merge, resolved for tinyPM: writes it, rewriting only the cell", () => {
    const a = planWith("merge", cellEdit, "tinypm");
    expect(a.targetSet.description).toBe(inJira(cellEdit));
    const doc = docFromPieces(a.targetRichDescription ?? []);
    const rows = content(FIXTURE)[TABLE]?.content ?? [];
    // Only the edited cell is new; every other node, row and cell is as Jira holds it.
    expect(doc.content.filter((_, i) => i !== TABLE)).toEqual(
      content(FIXTURE).filter((_, i) => i !== TABLE),
    );
    expect(doc.content[TABLE]?.content).toEqual([
      rows[0],
      {
        type: "tableRow",
        content: [rows[1]?.content?.[0], { type: "tableCell", content: [p("@Bob, @Carol")] }],
      },
      rows[2],
    ]);
    expect(a.conflicts).toEqual([
      expect.objectContaining({ field: "description", resolution: "tinypm" }),
    ]);
  });

  it("overwrite: writes it with the cell as text, reported as lost", () => {
    const a = planWith("overwrite", cellEdit);
    expect(a.targetSet.description).toBe(inJira(cellEdit));
    expect(a.descriptions?.[0]?.rich).toMatchObject({ outcome: "flattened" });
    expect(a.conflicts).toEqual([]);
  });

  it("keep-target: the target's description wins and goes back to tinyPM", () => {
    const a = planWith("keep-target", cellEdit);
    expect(a.targetSet).toEqual({});
    expect(a.tinypmSet).toEqual({ description: TEXT });
    expect(a.descriptions?.map((d) => [d.toSide, d.rich?.outcome])).toEqual([
      ["target", "target-kept"],
      ["tinypm", undefined],
    ]);
  });

  it("an edit that can be placed is written under every policy, rich content kept", () => {
    for (const policy of ["merge", "overwrite", "keep-target"] as const) {
      const a = planWith(policy, `${TEXT}\n\nOne more line.`);
      expect(a.targetSet.description).toBe(`${JIRA_TEXT}\n\nOne more line.`);
      expect(a.descriptions?.[0]?.rich).toMatchObject({ outcome: "kept", kept: 8, lost: [] });
    }
  });
});

describe("richText merge parks only the unit that cannot be placed", () => {
  // One edit touching two units: a paragraph (placeable) and the mention cell (not).
  const twoUnits = MENTION_CELL_EDIT.replace("## Rollout plan\n", "## Rollout plan v2\n");

  it("writes the placeable unit and parks exactly the cell, naming it", () => {
    const a = planWith("merge", twoUnits);
    // The target gets the paragraph; the cell stays as Jira holds it (mention and all).
    expect(a.targetSet.description).toBe(
      inJira(TEXT.replace("## Rollout plan\n", "## Rollout plan v2\n")),
    );
    const doc = docFromPieces(a.targetRichDescription ?? []);
    expect(doc.content[TABLE]).toEqual(content(FIXTURE)[TABLE]);
    expect(a.conflicts).toEqual([
      expect.objectContaining({
        field: "description",
        resolution: "parked",
        tinypm: { "block 4, row 2, cell 2": "@Bob, @Carol" },
        target: { "block 4, row 2, cell 2": "@Bob" },
      }),
    ]);
    expect(a.descriptions?.[0]?.rich).toMatchObject({
      outcome: "parked",
      written: true,
      lost: [
        {
          where: "block 4, row 2, cell 2",
          excerpt: "@Bob",
          what: ["cell (row 2, column 2): mention @Bob"],
        },
      ],
    });
  });

  it("a rerun with the paragraph written writes nothing and keeps the cell parked", () => {
    const written = TEXT.replace("## Rollout plan\n", "## Rollout plan v2\n");
    const a = planWith("merge", twoUnits, undefined, written);
    expect(a.targetSet).toEqual({});
    expect(a.changes).toEqual([]);
    expect(a.conflicts).toEqual([
      expect.objectContaining({
        resolution: "parked",
        tinypm: { "block 4, row 2, cell 2": "@Bob, @Carol" },
      }),
    ]);
  });

  it("parks a list item whose mention cannot be placed, and writes the other item's edit", () => {
    const doc: AdfNode = {
      type: "doc",
      content: [
        {
          type: "bulletList",
          content: [
            { type: "listItem", content: [p("first")] },
            {
              type: "listItem",
              content: [
                {
                  type: "paragraph",
                  content: [
                    { type: "text", text: "ask " },
                    { type: "mention", attrs: { id: "acc-1", text: "@Dana" } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const g = jiraItem(doc);
    const now = mapping.toTinypm(g).description ?? "";
    const next = now.replace("- first", "- first edited").replace("ask @Dana", "ask @Dana now");
    const c = mapping.composeDescription(g, story(next), true);
    expect(c?.parked).toEqual([
      expect.objectContaining({ where: "block 1, item 2", tinypm: "- ask @Dana now" }),
    ]);
    expect(c?.lost).toEqual([]);
    const out = docFromPieces(c?.pieces ?? []);
    const items = out.content[0]?.content ?? [];
    expect(items[1]).toEqual(doc.content?.[0]?.content?.[1]);
    expect(items[0]).toEqual({ type: "listItem", content: [p("first edited")] });
  });
});
