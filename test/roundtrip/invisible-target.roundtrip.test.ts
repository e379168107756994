import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import { startWorld, storyLinks, type World } from "./world.js";

// A complete read that leaves a linked issue out, and the issue's own read: GitHub answers 410
// for a deleted issue and 404 for one it no longer shows (transferred to a repository the token
// cannot see, access lost). Only the first is a deletion.
describe("a linked GitHub issue gone from the listing", () => {
  let world: World;
  let links: LinkRecord[] = [];
  // Every run reads both sides in full (the migration leaves the feed's checkpoint past its
  // writes, and a feed's read is never complete).
  const FULL = { fullScan: true, repairMarkers: true, onDelete: "delete" } as const;

  const sandbox = (path: string): Promise<Response> => {
    if (world.target.kind !== "github") throw new Error("a GitHub world");
    return fetch(`${world.target.server.url}${path}`, { method: "POST" });
  };
  const tinypmStory = (id: string) => world.tinypmTracker().get({ kind: "story", id });

  beforeAll(async () => {
    world = await startWorld({ target: "github", generate: "stories=6,tasks=0,comments=0" });
    await world.run("migrate");
    links = storyLinks(world, 6);
  }, 120_000);
  afterAll(async () => {
    await world.close();
  });

  it("answers 410 for a deleted issue and 404 for a transferred one", async () => {
    const [a, b] = [links[0], links[1]];
    if (a === undefined || b === undefined) throw new Error("two links");
    expect((await sandbox(`/_sandbox/issues/${a.targetId}/delete`)).status).toBe(200);
    expect((await sandbox(`/_sandbox/issues/${b.targetId}/transfer`)).status).toBe(200);
    if (world.target.kind !== "github") throw new Error("a GitHub world");
    const get = (n: string) =>
      fetch(`${world.target.server.url}/repos/acme/widgets/issues/${n}`, {
        headers: { authorization: `token ${world.target.server.token}` },
      });
    expect((await get(a.targetId)).status).toBe(410);
    expect((await get(b.targetId)).status).toBe(404);
  });

  it("deletes the story of a deleted issue, parks the story of one no longer shown", async () => {
    const [deleted, moved] = [links[0], links[1]];
    if (deleted === undefined || moved === undefined) throw new Error("two links");
    const report = await world.run("sync", FULL);
    expect(report.summary.deleted).toBe(1);
    expect(await tinypmStory(deleted.tinypmId)).toBeUndefined();
    // Not a deletion: the story stays, the run says why and what to do, and exits as failed.
    expect(await tinypmStory(moved.tinypmId)).toBeDefined();
    const failed = report.events.filter((e) => e.type === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ tinypmId: moved.tinypmId, targetId: moved.targetId });
    const message = failed[0]?.type === "failed" ? failed[0].message : "";
    expect(message).toContain(`GitHub issue ${moved.targetId} can no longer be read`);
    expect(message).toContain("not taken for deleted");
    expect(message).toContain("Give the token access");
    expect(report.summary.failed).toBe(1);
    // Every other story is as it was.
    for (const l of links.slice(2)) expect(await tinypmStory(l.tinypmId)).toBeDefined();
  }, 120_000);

  it("keeps the link: a later run parks it again, and never deletes the story", async () => {
    const moved = links[1];
    if (moved === undefined) throw new Error("a link");
    const again = await world.run("sync", FULL);
    expect(again.summary.deleted).toBe(0);
    expect(again.summary.failed).toBe(1);
    expect(await tinypmStory(moved.tinypmId)).toBeDefined();
    const still = storyLinks(world, 5).find((l) => l.tinypmId === moved.tinypmId);
    expect(still?.targetId).toBe(moved.targetId);
  }, 120_000);
});
