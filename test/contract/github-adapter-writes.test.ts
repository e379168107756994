import { afterEach, describe, expect, it } from "vitest";
import { PayloadInvalidError, RemoteUnavailableError } from "../../src/core/errors.js";
import type { Marker } from "../../src/core/model.js";
import { startGithubHarness, type GithubHarness } from "./github-setup.js";

let h: GithubHarness;
afterEach(async () => {
  await h.close();
});

const marker: Marker = { job: "widgets", origin: "tinypm", originKind: "story", originId: "42" };
const story = (n: number) => ({
  kind: "story" as const,
  title: `Story ${n}`,
  status: "open",
  assignees: [],
  labels: [],
});

async function rawIssue(number: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.sandbox.url}/repos/acme/widgets/issues/${number}`, {
    headers: { authorization: `token ${h.sandbox.token}`, "user-agent": "test" },
  });
  return (await res.json()) as Record<string, unknown>;
}

describe("GitHub adapter writes", () => {
  it("creates with labels, milestone and assignees in the create call itself", async () => {
    h = await startGithubHarness();
    await h.tracker.ensureIteration({ name: "Sprint 1" });
    const before = h.sandbox.stats();
    const item = await h.tracker.create({
      ...story(1),
      labels: ["bug", "ui"],
      assignees: [{ id: "alice", login: "alice" }],
      iteration: { name: "Sprint 1" },
      description: "text",
      marker,
      metadata: { color: "RED" },
    });
    const after = h.sandbox.stats();
    expect(after.writes - before.writes).toBe(1);
    expect(item).toMatchObject({
      labels: ["bug", "ui"],
      assignees: [{ id: "alice", login: "alice" }],
      iteration: { name: "Sprint 1" },
      description: "text",
      marker,
      metadata: { color: "RED" },
    });
    expect(String((await rawIssue(item.id)).body)).toMatch(
      /<!-- tinypm-sync:v2 \{.*"originId":"42".*\} -->$/,
    );
  });

  it("creates closed items with their reason and reopens them", async () => {
    h = await startGithubHarness();
    const dup = await h.tracker.create({ ...story(1), status: "closed:duplicate" });
    expect(dup.status).toBe("closed:duplicate");
    const reopened = await h.tracker.update(
      { kind: "story", id: dup.id },
      { set: { status: "open" } },
    );
    expect(reopened.status).toBe("open");
    const closed = await h.tracker.update(
      { kind: "story", id: dup.id },
      { set: { status: "closed:not_planned", title: "t2", labels: ["x"] } },
    );
    expect(closed).toMatchObject({ status: "closed:not_planned", title: "t2", labels: ["x"] });
    const item = await h.tracker.create(story(2));
    await h.tracker.delete({ kind: "story", id: item.id });
    expect((await h.tracker.get({ kind: "story", id: item.id }))?.status).toBe(
      "closed:not_planned",
    );
  });

  it("keeps the marker when the description changes", async () => {
    h = await startGithubHarness();
    const item = await h.tracker.create({
      ...story(1),
      description: "a",
      marker,
      metadata: { k: 1 },
    });
    const updated = await h.tracker.update(
      { kind: "story", id: item.id },
      { set: { description: "b" } },
    );
    expect(updated).toMatchObject({ description: "b", marker, metadata: { k: 1 } });
    const meta = await h.tracker.update(
      { kind: "story", id: item.id },
      { set: {}, metadata: { k: 2 }, base: updated },
    );
    expect(meta).toMatchObject({ description: "b", marker, metadata: { k: 2 } });
  });

  it("sets and clears the milestone", async () => {
    h = await startGithubHarness();
    const item = await h.tracker.create(story(1));
    const set = await h.tracker.update(
      { kind: "story", id: item.id },
      { set: { iteration: { name: "S2" } } },
    );
    expect(set.iteration?.name).toBe("S2");
    const cleared = await h.tracker.update(
      { kind: "story", id: item.id },
      { set: { iteration: undefined } },
    );
    expect(cleared.iteration).toBeUndefined();
  });

  it("ensures labels with colours and milestones with description and due date, once", async () => {
    h = await startGithubHarness();
    const first = await h.tracker.ensureLabels([
      { name: "story", color: "#00FF00", description: "a story" },
      { name: "bug", color: "d73a4a" },
    ]);
    expect(first.created).toContain("story");
    const again = await h.tracker.ensureLabels([
      { name: "story", color: "00ff00", description: "a story" },
    ]);
    expect(again).toEqual({ created: [], updated: [] });
    const recolour = await h.tracker.ensureLabels([{ name: "story", color: "0000ff" }]);
    expect(recolour.updated).toEqual(["story"]);
    expect(await h.tracker.listLabels()).toContainEqual({
      name: "story",
      color: "0000ff",
      description: "a story",
    });
    const m = await h.tracker.ensureIteration({ name: "S1", goal: "g", endDate: "2026-05-01" });
    const m2 = await h.tracker.ensureIteration({ name: "S1" });
    expect(m2).toEqual(m);
    expect(m).toMatchObject({ name: "S1", goal: "g", endDate: "2026-05-01" });
  });

  it("ensures the label table from the options before the first create", async () => {
    h = await startGithubHarness();
    const t = h.tracker2({ labels: [{ name: "priority:must", color: "ff0000" }] });
    await t.create({ ...story(1), labels: ["priority:must"] });
    const res = await fetch(`${h.sandbox.url}/repos/acme/widgets/labels/priority:must`, {
      headers: { authorization: `token ${h.sandbox.token}`, "user-agent": "test" },
    });
    expect(((await res.json()) as { color: string }).color).toBe("ff0000");
  });

  it("adds and removes sub-issues by the child's id", async () => {
    h = await startGithubHarness();
    const parent = await h.tracker.create(story(1));
    const child = await h.tracker.create(story(2));
    await h.tracker.addSubIssue(parent.id, child.id);
    expect((await h.tracker.get({ kind: "task", id: child.id }))?.parentId).toBe(parent.id);
    // A fresh tracker has no id cache: it reads the child to learn its id.
    await h.tracker2().removeSubIssue(parent.id, child.id);
    const read = await h.tracker.get({ kind: "story", id: child.id });
    expect(read?.kind).toBe("story");
    expect(read?.parentId).toBeUndefined();
  });

  it("takes a sub-issue already under the same parent (a repeat after a lost answer)", async () => {
    h = await startGithubHarness();
    const parent = await h.tracker.create(story(1));
    const other = await h.tracker.create(story(3));
    const child = await h.tracker.create(story(2));
    await h.tracker.addSubIssue(parent.id, child.id);
    await expect(h.tracker.addSubIssue(parent.id, child.id)).resolves.toBeUndefined();
    // Under another parent it is still refused: GitHub's 422 comes through.
    await expect(h.tracker.addSubIssue(other.id, child.id)).rejects.toBeInstanceOf(
      PayloadInvalidError,
    );
  });

  it("creates comments with a marker, finds them on a rerun, and updates them", async () => {
    h = await startGithubHarness();
    const item = await h.tracker.create({ ...story(1), marker });
    const draft = {
      author: { login: "alice" },
      createdAt: "2024-01-01T00:00:00Z",
      body: "hi",
      marker,
    };
    const c = await h.tracker.addComment({ kind: "story", id: item.id }, draft);
    expect(c.body).toBe("hi");
    const found = await h.tracker2().findComment({ kind: "story", id: item.id }, draft);
    expect(found?.id).toBe(c.id);
    expect(
      await h.tracker.findComment({ kind: "story", id: item.id }, { ...draft, body: "other" }),
    ).toBeUndefined();
    const edited = await h.tracker.updateComment(c.id!, "edited");
    expect(edited.body).toBe("edited");
    expect(
      (await h.tracker.listComments({ kind: "story", id: item.id })).map((x) => x.body),
    ).toEqual(["edited"]);
  });

  it("finds by marker what an interrupted run created", async () => {
    h = await startGithubHarness();
    // The create reaches GitHub, but the answer is lost (garbled) on the way back.
    h.garbleNext("cut");
    await expect(h.tracker.create({ ...story(1), marker })).rejects.toBeInstanceOf(
      RemoteUnavailableError,
    );
    const rerun = h.tracker2();
    const found = await rerun.findByMarker(marker);
    expect(found).toMatchObject({ id: "1", title: "Story 1", marker });
    expect(await rerun.findByMarker({ ...marker, originId: "43" })).toBeUndefined();
  });

  it("turns a 422 into PayloadInvalidError with GitHub's errors", async () => {
    h = await startGithubHarness();
    const err: unknown = await h.tracker
      .ensureLabels([{ name: "x", color: "nothex" }])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadInvalidError);
    expect((err as PayloadInvalidError).details.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: "color" })]),
    );
  });
});
