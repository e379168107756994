import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdfNode } from "../../src/adapters/jira/adf.js";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { ConflictRecord } from "../../src/state/records.js";
import { openSqliteStore, type LinkRecord } from "../../src/state/sqlite-store.js";
import { startWorld, type World } from "./world.js";

/** People's rich text through both sandboxes: a title edit leaves it alone, an append keeps it. */
const TEMPLATE = readFileSync(
  new URL("../fixtures/rich-text/github-issue-template.md", import.meta.url),
  "utf8",
).trimEnd();
const ADF = JSON.parse(
  readFileSync(new URL("../fixtures/rich-text/jira-description.json", import.meta.url), "utf8"),
) as { content: unknown[] };

describe.each(["github", "jira"] as const)("rich text on %s, end to end", (kind) => {
  let world: World;
  let tinypm: Tracker;
  let target: Tracker;
  let link: LinkRecord;

  const get = async (tracker: Tracker, id: string): Promise<WorkItem> => {
    const item = await tracker.get({ kind: "story", id });
    if (item === undefined) throw new Error(`story ${id} is missing`);
    return item;
  };
  const sync = async (): Promise<void> => {
    const report = await world.run("sync");
    const failed = report.events.filter((e) => e.type === "failed");
    if (failed.length > 0) throw new Error(`sync failed: ${JSON.stringify(failed)}`);
  };
  /** The description as the target stores it: GitHub body text, or the Jira ADF document. */
  const stored = async (): Promise<unknown> => {
    if (world.target.kind === "github") return (await get(target, link.targetId)).description;
    const s = world.target.server;
    const res = await fetch(`${s.url}/rest/api/3/issue/${link.targetId}?fields=description`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${s.email}:${s.token}`).toString("base64")}`,
      },
    });
    const body = (await res.json()) as { fields: { description: { content: unknown[] } } };
    return body.fields.description.content;
  };

  beforeAll(async () => {
    world = await startWorld({ target: kind, generate: "stories=2,tasks=0,comments=0" });
    tinypm = world.tinypmTracker();
    target = world.targetTracker();
    await world.run("migrate");
    const state = openSqliteStore({ path: world.statePath });
    const first = [...state.links("widgets")].find((l) => l.kind === "story");
    state.close();
    if (first === undefined) throw new Error("no story linked");
    link = first;
    // A person writes a rich description on the target.
    if (world.target.kind === "github") {
      await target.update({ kind: "story", id: link.targetId }, { set: { description: TEMPLATE } });
    } else {
      const s = world.target.server;
      const res = await fetch(`${s.url}/rest/api/3/issue/${link.targetId}`, {
        method: "PUT",
        headers: {
          authorization: `Basic ${Buffer.from(`${s.email}:${s.token}`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ fields: { description: ADF } }),
      });
      if (res.status !== 204) throw new Error(`the sandbox refused the ADF: ${String(res.status)}`);
    }
    await sync();
  });
  afterAll(async () => {
    await tinypm.close();
    await target.close();
    await world.close();
  });

  const original = (): unknown => (kind === "github" ? TEMPLATE : ADF.content);

  it("brings the person's text to tinyPM readably", async () => {
    const text = (await get(tinypm, link.tinypmId)).description ?? "";
    const expected = kind === "github" ? TEMPLATE : "▸ Rollback\nRevert the tag and redeploy.";
    expect(text).toContain(expected);
  });

  it("a tinyPM title edit leaves the target's description exactly as the person wrote it", async () => {
    await tinypm.update(
      { kind: "story", id: link.tinypmId },
      { set: { title: "Renamed in tinyPM" } },
    );
    await sync();
    expect((await get(target, link.targetId)).title).toBe("Renamed in tinyPM");
    expect(await stored()).toEqual(original());
  });

  it("a tinyPM line appended keeps every rich block and adds one", async () => {
    const now = (await get(tinypm, link.tinypmId)).description ?? "";
    await tinypm.update(
      { kind: "story", id: link.tinypmId },
      { set: { description: `${now}\n\nOne more line from tinyPM.` } },
    );
    await sync();
    const appended =
      kind === "github"
        ? `${TEMPLATE}\n\nOne more line from tinyPM.`
        : [
            ...ADF.content,
            { type: "paragraph", content: [{ type: "text", text: "One more line from tinyPM." }] },
          ];
    expect(await stored()).toEqual(appended);
  });

  /** The description in tinyPM with one line replaced, then a sync. */
  const editInTinypm = async (from: string, to: string): Promise<void> => {
    const now = (await get(tinypm, link.tinypmId)).description ?? "";
    expect(now).toContain(from);
    await tinypm.update(
      { kind: "story", id: link.tinypmId },
      { set: { description: now.replace(from, to) } },
    );
    await sync();
  };
  /** One more sync writes nothing anywhere. */
  const settled = async (): Promise<void> => {
    const targetWrites = world.target.server.stats().writes;
    const tinypmWrites = world.tinypm.stats().writes;
    const report = await world.run("sync");
    expect(report.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    expect(world.target.server.stats().writes).toBe(targetWrites);
    expect(world.tinypm.stats().writes).toBe(tinypmWrites);
  };
  const nodes = (v: unknown): AdfNode[] => (Array.isArray(v) ? (v as AdfNode[]) : []);
  const at = (content: AdfNode[], type: string): number =>
    content.findIndex((n) => n.type === type);

  /** A new task's id, Jira's own. */
  const ANY_ID: unknown = expect.any(String);
  /** Jira's nodes with the `i`th replaced. */
  const replaced = (content: AdfNode[], i: number, node: unknown): unknown[] =>
    content.map((n, j) => (j === i ? node : n));

  it("a tinyPM edit of one list item changes only that item; the others keep their checkboxes", async () => {
    const before = await stored();
    const [from, to] =
      kind === "github"
        ? ["- [x] Open the board", "- [x] Open the board twice"]
        : ["- [ ] Update the runbook", "- [ ] Update the runbook and the wiki"];
    await editInTinypm(from, to);
    const was = nodes(before);
    const i = at(was, "taskList");
    const tasks = was[i];
    // On Jira every other node is as it was; the task list keeps its id and its ticked task.
    const expected =
      kind === "github"
        ? (before as string).replace(from, to)
        : replaced(was, i, {
            ...tasks,
            content: [
              tasks?.content?.[0],
              {
                type: "taskItem",
                attrs: { localId: ANY_ID, state: "TODO" },
                content: [{ type: "text", text: "Update the runbook and the wiki" }],
              },
            ],
          });
    expect(await stored()).toEqual(expected);
    await settled();
  });

  it("a tinyPM edit of one table row changes only that row; other rows keep their rich cells", async () => {
    const before = await stored();
    const [from, to] =
      kind === "github"
        ? ["| Firefox | fails  |", "| Firefox | fails on 128 |"]
        : ["| Deploy      | CI      |", "| Deploy      | CI/CD   |"];
    await editInTinypm(from, to);
    const was = nodes(before);
    const i = at(was, "table");
    const rows = was[i]?.content ?? [];
    // On Jira the header's bold and the mention in the second row are as Jira held them.
    const expected =
      kind === "github"
        ? (before as string).replace(from, to)
        : replaced(was, i, {
            ...was[i],
            content: [
              rows[0],
              rows[1],
              {
                type: "tableRow",
                content: [
                  rows[2]?.content?.[0],
                  {
                    type: "tableCell",
                    content: [{ type: "paragraph", content: [{ type: "text", text: "CI/CD" }] }],
                  },
                ],
              },
            ],
          });
    expect(await stored()).toEqual(expected);
    await settled();
  });

  /** The job's open conflicts, as `conflicts list` prints them. */
  const openConflicts = (): ConflictRecord[] => {
    const state = openSqliteStore({ path: world.statePath });
    try {
      return state.conflicts({ job: "widgets", status: "open" });
    } finally {
      state.close();
    }
  };

  // GitHub Markdown is the text itself: every unit can be placed there, nothing is ever parked.
  it.runIf(kind === "jira")(
    "merge: one edit of two units writes the placeable one and parks only the other",
    async () => {
      const before = nodes(await stored());
      const heading = at(before, "heading");
      const table = at(before, "table");
      const now = (await get(tinypm, link.tinypmId)).description ?? "";
      expect(now).toContain("| Drain queue | @Bob    |");
      await tinypm.update(
        { kind: "story", id: link.tinypmId },
        {
          set: {
            description: now
              .replace("## Rollout plan", "## Rollout plan v2")
              .replace("| Drain queue | @Bob    |", "| Drain queue | @Bob, @Carol |"),
          },
        },
      );
      const report = await world.run("sync");
      // The heading is on Jira; the table, with its mention cell, is exactly as Jira held it.
      const v2 = { ...before[heading], content: [{ type: "text", text: "Rollout plan v2" }] };
      expect(await stored()).toEqual(replaced(before, heading, v2));
      // The item was written and its conflict reported, naming the cell only. It is counted
      // once, as a conflict: it waits for a person, and the run says so (src/sync/outcome.ts).
      expect(report.summary).toMatchObject({ conflicts: 1, updated: 0, failed: 0 });
      const reported = report.events.flatMap((e) => (e.type === "conflict" ? e.conflicts : []));
      expect(reported.map((r) => [r.field, r.resolution, r.units?.map((u) => u.where)])).toEqual([
        ["description", "parked", [`block ${table + 1}, row 2, cell 2`]],
      ]);
      const note = report.plan.actions
        .flatMap((a) => (a.type === "update" ? (a.descriptions ?? []) : []))
        .find((d) => d.toSide === "target");
      expect(note?.rich).toMatchObject({ outcome: "parked", written: true });
      expect(note?.rich?.lost.map((l) => l.where)).toEqual([`block ${table + 1}, row 2, cell 2`]);
      const where = `block ${table + 1}, row 2, cell 2`;
      const [c, ...more] = openConflicts();
      expect(more).toEqual([]);
      expect(c).toMatchObject({
        field: "description",
        tinypmValue: { [where]: "@Bob, @Carol" },
        targetValue: { [where]: "@Bob" },
      });

      // A second sync writes nothing and the cell stays parked.
      const targetWrites = world.target.server.stats().writes;
      const tinypmWrites = world.tinypm.stats().writes;
      const again = await world.run("sync");
      expect(again.summary).toMatchObject({ updated: 0, conflicts: 1, failed: 0 });
      expect(world.target.server.stats().writes).toBe(targetWrites);
      expect(world.tinypm.stats().writes).toBe(tinypmWrites);
      expect(openConflicts().map((o) => o.id)).toEqual([c?.id]);

      // Taking tinyPM's side writes that cell only (as text): every other node stays as it is.
      const state = openSqliteStore({ path: world.statePath });
      state.resolveConflict(c?.id ?? -1, "tinypm");
      state.close();
      await sync();
      const after = nodes(await stored());
      const rows = before[table]?.content ?? [];
      const cell = {
        type: "tableCell",
        content: [{ type: "paragraph", content: [{ type: "text", text: "@Bob, @Carol" }] }],
      };
      const row = { ...rows[1], content: [rows[1]?.content?.[0], cell] };
      const table2 = { ...before[table], content: [rows[0], row, ...rows.slice(2)] };
      expect(after).toEqual(replaced(replaced(before, heading, v2) as AdfNode[], table, table2));
      expect(openConflicts()).toEqual([]);
      await settled();
    },
  );
});
