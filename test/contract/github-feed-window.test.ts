import { afterEach, describe, expect, it } from "vitest";
import { readFeed, startGithubHarness, type GithubHarness } from "./github-setup.js";

/**
 * The change feed re-reads the issues updated in the last seconds before its newest one (an
 * issue stamped earlier but listed later is not missed). When more than a page of issues falls
 * in that window — a migration's last burst of writes at lifted limits — no ETag can stand for
 * the listing, and every quiet sync listed the window again (four pages at 500 stories, for
 * ever). A listing read well after its newest issue has shown every earlier one: the window then
 * shrinks to that issue's own second, and the next quiet read is one 304.
 */
let h: GithubHarness;
let clock = Date.parse("2026-03-02T10:00:00Z");
afterEach(async () => {
  await h.close();
});

const read = readFeed;

/** Issues a person files in one burst, `perSecond` of them each second of the sandbox's clock. */
async function burst(count: number, perSecond: number): Promise<void> {
  const s = h.sandbox;
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % perSecond === 0) clock += 1_000;
    const res = await fetch(`${s.url}/repos/${s.owner}/${s.repo}/issues`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: `Burst ${String(i)}` }),
    });
    if (res.status !== 201) throw new Error(`POST /issues: ${String(res.status)}`);
  }
}

describe("GitHub change feed after a burst of more than a page of writes", () => {
  it("shrinks its window once the burst has settled, so that the next quiet read is one 304", async () => {
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => clock });
    const tracker = h.tracker;
    // 150 issues in 3 seconds: every one of them inside the 5-second window of the newest.
    await burst(150, 50);
    const first = await read(tracker, undefined);
    expect(first.pages.flatMap((p) => p.changes)).toHaveLength(150);

    // Read again at once: the window still holds every issue of the burst (two pages, no ETag).
    const soon = await read(tracker, first.checkpoint);
    expect(soon.pages.flatMap((p) => p.changes)).toEqual([]);

    // A minute later the burst has settled: one read lists the window and then the newest
    // second, and stores the ETag of that one-page listing…
    clock += 60_000;
    const settled = await read(tracker, soon.checkpoint);
    expect(settled.pages.flatMap((p) => p.changes)).toEqual([]);
    // …so that the quiet read after it is a single 304.
    const before = h.sandbox.stats();
    const quiet = await read(tracker, settled.checkpoint);
    const after = h.sandbox.stats();
    expect(quiet.pages.flatMap((p) => p.changes)).toEqual([]);
    expect([after.requests - before.requests, after.notModified - before.notModified]).toEqual([
      1, 1,
    ]);

    // An issue edited since, even one stamped within the settled second's neighbourhood, is fed.
    clock += 1_000;
    const edited = await fetch(
      `${h.sandbox.url}/repos/${h.sandbox.owner}/${h.sandbox.repo}/issues/7`,
      {
        method: "PATCH",
        headers: { authorization: `Bearer ${h.sandbox.token}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Edited later" }),
      },
    );
    expect(edited.status).toBe(200);
    const next = await read(tracker, quiet.checkpoint);
    expect(
      next.pages.flatMap((p) => p.changes.map((c) => (c.kind === "upsert" ? c.item.title : ""))),
    ).toEqual(["Edited later"]);
  });

  it("keeps the full window while the burst is recent (an issue stamped earlier may list later)", async () => {
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => clock });
    await burst(150, 50);
    const first = await read(h.tracker, undefined);
    // Newest issue at 10:00:02; the listing was read at 10:00:02 too: the window starts 5 s earlier.
    expect(first.checkpoint).toMatchObject({ since: "2026-03-02T09:59:57Z" });
  });
});
