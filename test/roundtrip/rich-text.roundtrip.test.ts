import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openStateStore, type LinkRecord } from "../../src/state/sqlite-store.js";
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
    const state = openStateStore({ path: world.statePath });
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
});
