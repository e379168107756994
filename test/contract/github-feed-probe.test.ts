import { afterEach, describe, expect, it } from "vitest";
import type { ChangePage } from "../../src/core/tracker.js";
import { personSends, readFeed, startGithubHarness, type GithubHarness } from "./github-setup.js";

/**
 * Issue #36: more than a page of issues stamped in one second (a large migration's last second
 * at lifted limits; 16,000 items left 100+) — the change feed's window, once settled, is that
 * second, and listed oldest first no ETag can stand for it: every quiet sync listed it again,
 * two requests and no 304, for ever. The newest-first probe's ETag stands for it instead.
 */
let h: GithubHarness;
let clock = Date.parse("2026-03-02T10:00:00Z");
afterEach(async () => {
  await h.close();
});

const read = readFeed;

const titles = (pages: readonly ChangePage[]): string[] =>
  pages.flatMap((p) => p.changes.map((c) => (c.kind === "upsert" ? c.item.title : "")));

const person = (method: "POST" | "PATCH", path: string, body: unknown): Promise<void> =>
  personSends(h.sandbox, method, path, body);

/** The sandbox's request counts since `before`: all, and the 304s among them. */
function since(before: { requests: number; notModified: number }): [number, number] {
  const after = h.sandbox.stats();
  return [after.requests - before.requests, after.notModified - before.notModified];
}

const draft = { status: "open", assignees: [], labels: [] } as const;

describe("GitHub change feed: more than a page of issues in its newest second", () => {
  it("a settled read stores the probe's ETag: the next quiet read is one 304, a change is fed", async () => {
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => clock });
    for (let i = 0; i < 130; i++) await person("POST", "/issues", { title: `Burst ${String(i)}` });
    clock += 60_000;
    const first = await read(h.tracker, undefined);
    expect(titles(first.pages)).toHaveLength(130);
    expect(first.checkpoint).toMatchObject({ since: "2026-03-02T10:00:00Z", probe: "newest" });

    const before = h.sandbox.stats();
    const quiet = await read(h.tracker, first.checkpoint);
    expect(titles(quiet.pages)).toEqual([]);
    expect(since(before)).toEqual([1, 1]);

    // Any update sorts first newest-first: the probe answers 200 and the window is listed again.
    clock += 1_000;
    await person("PATCH", "/issues/7", { title: "Edited later" });
    const next = await read(h.tracker, quiet.checkpoint);
    expect(titles(next.pages)).toEqual(["Edited later"]);
    clock += 60_000;
    const after = await read(h.tracker, next.checkpoint);
    expect(titles(after.pages)).toEqual([]);
    const last = h.sandbox.stats();
    expect(titles((await read(h.tracker, after.checkpoint)).pages)).toEqual([]);
    expect(since(last)).toEqual([1, 1]);
  });

  it("an unsettled read stores no probe (an issue stamped earlier may list later)", async () => {
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => clock });
    for (let i = 0; i < 130; i++) await person("POST", "/issues", { title: `Burst ${String(i)}` });
    const first = await read(h.tracker, undefined);
    expect(first.checkpoint).not.toHaveProperty("probe");
    expect(first.checkpoint).not.toHaveProperty("etag");
  });

  it("a migration's checkpoint after such a second: the first sync is one 304", async () => {
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => clock });
    const tracker = h.tracker;
    for await (const item of tracker.list({})) expect(item.id).not.toBe("");
    for (let i = 0; i < 130; i++)
      await tracker.create({ kind: "task", title: `T${String(i)}`, ...draft });
    clock += 7_000;
    const cp = await tracker.checkpointAfterWrites();
    expect(cp).toMatchObject({ since: "2026-03-02T10:00:00Z", probe: "newest" });
    const before = h.sandbox.stats();
    expect(titles((await read(tracker, cp)).pages)).toEqual([]);
    expect(since(before)).toEqual([1, 1]);
    clock += 1_000;
    await person("POST", "/issues/3/comments", { body: "A person's word" });
    expect(titles((await read(tracker, cp)).pages)).toEqual(["T2"]);
  });

  it("a migration's checkpoint keeps no probe when an issue changed after its listing", async () => {
    clock = Date.parse("2026-03-02T10:00:00Z");
    let edit: (() => Promise<void>) | undefined;
    // The person edits an issue just as the probe is sent, after the settled listing.
    const transport: typeof fetch = async (input, init) => {
      const then = edit;
      const url = input instanceof Request ? input.url : input.toString();
      if (then !== undefined && url.includes("direction=desc")) {
        edit = undefined;
        clock += 1_000;
        await then();
      }
      return fetch(input, init);
    };
    h = await startGithubHarness({ now: () => clock }, { fetch: transport });
    const tracker = h.tracker;
    for await (const item of tracker.list({})) expect(item.id).not.toBe("");
    for (let i = 0; i < 130; i++)
      await tracker.create({ kind: "task", title: `T${String(i)}`, ...draft });
    clock += 7_000;
    edit = () => person("PATCH", "/issues/9", { title: "Meanwhile" });
    const cp = await tracker.checkpointAfterWrites();
    expect(edit).toBeUndefined();
    expect(cp).not.toHaveProperty("etag");
    expect(titles((await read(tracker, cp)).pages)).toEqual(["Meanwhile"]);
  });
});
