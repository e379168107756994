/**
 * Rich text on Jira Data Center, end to end: a person's wiki markup (tables, code, panels,
 * mentions, snake_case) reaches tinyPM readably and is never rewritten unless its own block
 * changed (a table row edited in tinyPM goes back as wiki with its mention and emphasis); tinyPM's Markdown (tables, code) reaches DC as wiki and comes back the same; a second
 * sync writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openSqliteStore, type LinkRecord } from "../../src/state/sqlite-store.js";
import { startWorld, type World } from "./world.js";

const WIKI = [
  "h2. Rollout plan",
  "",
  "Call {{my_function_name}} with *care*; ask [~bob] or see [the runbook|https://x.example/run_book].",
  "",
  "||Step||Owner||",
  "|Deploy|[~alice]|",
  "|Verify _quickly_|ops|",
  "",
  "{code:python}",
  "def roll_back(a_b):",
  "    return a_b * 2",
  "{code}",
  "",
  "{panel:title=Careful}",
  "Revert the tag and redeploy.",
  "{panel}",
].join("\n");

const MARKDOWN = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```ts\nconst a_b = 1;\n```";

describe("rich text on Jira Data Center, end to end", () => {
  let world: World;
  let tinypm: Tracker;
  let link: LinkRecord;

  const get = async (tracker: Tracker, id: string): Promise<WorkItem> => {
    const item = await tracker.get({ kind: "story", id });
    if (item === undefined) throw new Error(`story ${id} is missing`);
    return item;
  };
  const sync = async () => {
    const report = await world.run("sync");
    const failed = report.events.filter((e) => e.type === "failed");
    if (failed.length > 0) throw new Error(`sync failed: ${JSON.stringify(failed)}`);
    return report;
  };
  const call = (path: string, init: RequestInit = {}) => {
    const s = world.target.server;
    return fetch(`${s.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
    });
  };
  /** The description as Data Center stores it: wiki text. */
  const stored = async (id: string): Promise<string> => {
    const res = await call(`/rest/api/2/issue/${id}?fields=description`);
    return ((await res.json()) as { fields: { description: string } }).fields.description;
  };

  beforeAll(async () => {
    world = await startWorld({
      target: "jira",
      generate: "stories=2,tasks=0,comments=0",
      jira: { deployment: "datacenter" },
    });
    tinypm = world.tinypmTracker();
    // tinyPM's own rich Markdown on the second story, migrated as wiki.
    await tinypm.update({ kind: "story", id: "2" }, { set: { description: MARKDOWN } });
    await world.run("migrate");
    const state = openSqliteStore({ path: world.statePath });
    const first = [...state.links("widgets")].find((l) => l.kind === "story");
    state.close();
    if (first === undefined) throw new Error("no story linked");
    link = first;
    const res = await call(`/rest/api/2/issue/${link.targetId}`, {
      method: "PUT",
      body: JSON.stringify({ fields: { description: WIKI } }),
    });
    if (res.status !== 204) throw new Error(`the sandbox refused the wiki: ${String(res.status)}`);
    await sync();
  });
  afterAll(async () => {
    await tinypm.close();
    await world.close();
  });

  it("brings the person's wiki to tinyPM as readable Markdown", async () => {
    const text = (await get(tinypm, link.tinypmId)).description ?? "";
    expect(text).toContain("## Rollout plan");
    expect(text).toContain("`my_function_name`");
    expect(text).toMatch(/^\| *Step *\| *Owner *\|$/m);
    expect(text).toContain("```python\ndef roll_back(a_b):\n    return a_b * 2\n```");
    expect(text).toContain("Revert the tag and redeploy.");
  });

  it("shows the wiki's mentions in tinyPM as the people they name, in text and in table cells", async () => {
    const text = (await get(tinypm, link.tinypmId)).description ?? "";
    expect(text).toContain("ask @bob or see [the runbook](https://x.example/run_book)");
    expect(text).toMatch(/^\| Deploy +\| @alice \|$/m);
  });

  it("a tinyPM title edit leaves the wiki exactly as the person wrote it", async () => {
    await tinypm.update({ kind: "story", id: link.tinypmId }, { set: { title: "Renamed" } });
    await sync();
    expect(await stored(link.targetId)).toBe(WIKI);
  });

  it("a tinyPM line appended keeps every wiki block byte for byte and adds one", async () => {
    const now = (await get(tinypm, link.tinypmId)).description ?? "";
    await tinypm.update(
      { kind: "story", id: link.tinypmId },
      { set: { description: `${now}\n\nAdded in tinyPM: snake_case stays.` } },
    );
    await sync();
    expect(await stored(link.targetId)).toBe(`${WIKI}\n\nAdded in tinyPM: snake_case stays.`);
  });

  it("a tinyPM edit of one table row rewrites only the table, its mention and emphasis kept, then writes nothing", async () => {
    const now = (await get(tinypm, link.tinypmId)).description ?? "";
    const edited = now.replace(/(\| *Verify _quickly_ *\| *)ops( *\|)/, "$1ops team$2");
    expect(edited).not.toBe(now);
    await tinypm.update({ kind: "story", id: link.tinypmId }, { set: { description: edited } });
    await sync();
    // The table is the unit that changed: rendered anew with its mention and emphasis as wiki;
    // every other block is byte for byte what the person wrote.
    const table = "||Step||Owner||\n|Deploy|[~alice]|\n|Verify _quickly_|ops team|";
    expect(await stored(link.targetId)).toBe(
      `${WIKI.replace("||Step||Owner||\n|Deploy|[~alice]|\n|Verify _quickly_|ops|", table)}\n\nAdded in tinyPM: snake_case stays.`,
    );
    const writes = [world.target.server.stats().writes, world.tinypm.stats().writes];
    const report = await sync();
    expect(report.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    expect([world.target.server.stats().writes, world.tinypm.stats().writes]).toEqual(writes);
  });

  it("writes tinyPM's Markdown (a table, code) as wiki, reads them back the same, then writes nothing", async () => {
    const state = openSqliteStore({ path: world.statePath });
    const second = [...state.links("widgets")].find((l) => l.tinypmId === "2");
    state.close();
    if (second === undefined) throw new Error("story 2 is not linked");
    const wiki = await stored(second.targetId);
    // Markdown → ADF writes a tinyPM table as text on Cloud too (adf.ts keeps to a canonical
    // subset); its wiki escapes keep it text, and it reads back exactly.
    expect(wiki).toContain("\\| a \\| b \\|");
    expect(wiki).toContain("{code:ts}\nconst a_b = 1;\n{code}");
    expect((await get(world.targetTracker(), second.targetId)).description).toBe(MARKDOWN);
    const before = world.target.server.stats().writes;
    const report = await sync();
    expect(report.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    expect(world.target.server.stats().writes).toBe(before);
  });
});
