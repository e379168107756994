import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tracker } from "../../src/core/tracker.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import type { RunReport } from "../../src/sync/engine.js";
import { startWorld, storyLinks, type World } from "./world.js";

/**
 * A person deletes a synced issue on the target. A change feed never shows a deletion, so a
 * sync learns of it when it reads the issue by id — because its tinyPM story changed — or when
 * it reads the whole target (`sync --full`). Either way the deletion is mirrored per `onDelete`
 * (close: the tinyPM story is rejected); the story's tinyPM edit is never taken for "unchanged"
 * against an issue that no longer exists.
 */
/** The tinyPM ids of the linked items a run planned as deleted on one side. */
const deleted = (run: RunReport): string[] =>
  run.plan.actions.flatMap((a) => (a.type === "delete" ? [a.link.tinypmId] : []));

describe.each(["github", "jira"] as const)("an issue deleted on %s", (kind) => {
  let world: World;
  let tinypm: Tracker;
  let target: Tracker;
  let links: LinkRecord[];
  const status = async (id: string): Promise<string | undefined> =>
    (await tinypm.get({ kind: "story", id }))?.status;
  /** A person deletes the issue for good (GitHub: an admin's GraphQL `deleteIssue`). */
  const deleteIssue = async (id: string): Promise<void> => {
    if (world.target.kind === "jira") return target.delete({ kind: "story", id });
    const gh = world.target.server;
    const issue = (await (
      await fetch(`${gh.url}/repos/${gh.owner}/${gh.repo}/issues/${id}`, {
        headers: { authorization: `token ${gh.token}` },
      })
    ).json()) as { node_id: string };
    const res = await fetch(`${gh.url}/graphql`, {
      method: "POST",
      headers: { authorization: `bearer ${gh.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        query: "mutation($id: ID!) { deleteIssue(input: { issueId: $id }) { clientMutationId } }",
        variables: { id: issue.node_id },
      }),
    });
    const answer = (await res.json()) as { errors?: unknown };
    if (answer.errors !== undefined) throw new Error(JSON.stringify(answer.errors));
  };

  beforeAll(async () => {
    world = await startWorld({ target: kind, generate: "stories=4,tasks=0,comments=0" });
    tinypm = world.tinypmTracker();
    target = world.targetTracker();
    await world.run("migrate");
    await world.run("sync");
    links = storyLinks(world, 4);
  });
  afterAll(async () => {
    await tinypm.close();
    await target.close();
    await world.close();
  });

  it("is mirrored at once when its tinyPM story changed, at the next full read otherwise", async () => {
    const [edited, untouched] = links;
    if (edited === undefined || untouched === undefined) throw new Error("two stories linked");
    const openStatus = await status(untouched.tinypmId);
    await deleteIssue(edited.targetId);
    await deleteIssue(untouched.targetId);
    await tinypm.update(
      { kind: "story", id: edited.tinypmId },
      { set: { title: "Edited after its issue was deleted" } },
    );

    // The edited story's issue is read by id: gone, so the deletion is mirrored.
    const first = await world.run("sync");
    expect(first.events.filter((e) => e.type === "failed")).toEqual([]);
    expect(deleted(first)).toEqual([edited.tinypmId]);
    expect(await status(edited.tinypmId)).toBe("REJECTED");
    // The feed did not show the other deletion: its story stays as it was.
    expect(await status(untouched.tinypmId)).toBe(openStatus);

    // A full read (`sync --full`) reads the whole target: the other deletion shows.
    const full = await world.run("sync", { fullScan: true });
    expect(full.events.filter((e) => e.type === "failed")).toEqual([]);
    expect(deleted(full)).toEqual([untouched.tinypmId]);
    expect(await status(untouched.tinypmId)).toBe("REJECTED");

    // Settled: a later sync, full or not, plans no deletion and writes nothing.
    const writes = world.tinypm.stats().writes + world.target.server.stats().writes;
    for (const fullScan of [false, true]) {
      const again = await world.run("sync", { fullScan });
      expect(deleted(again)).toEqual([]);
    }
    expect(world.tinypm.stats().writes + world.target.server.stats().writes).toBe(writes);
  });
});
