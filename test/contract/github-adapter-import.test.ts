import { afterEach, describe, expect, it } from "vitest";
import { ImportFailedError } from "../../src/adapters/github/index.js";
import { PermissionError } from "../../src/core/errors.js";
import type { Marker } from "../../src/core/model.js";
import { startGithubHarness, type GithubHarness } from "./github-setup.js";

let h: GithubHarness;
afterEach(async () => {
  await h.close();
});

const marker: Marker = { job: "widgets", origin: "tinypm", originKind: "story", originId: "9" };
const story = {
  kind: "story" as const,
  title: "Imported",
  description: "body",
  status: "closed:completed",
  assignees: [{ login: "alice" }],
  labels: ["bug"],
  marker,
};

describe("GitHub adapter issue import API", () => {
  it("imports an issue with its comments in one call, polled until imported", async () => {
    h = await startGithubHarness({ timeScale: 50 }, { importApi: true, timeScale: 50 });
    const comments = [
      { author: { login: "bob" }, createdAt: "2020-01-02T03:04:05Z", body: "first", marker },
      { author: { login: "bob" }, createdAt: "2020-01-03T03:04:05Z", body: "second", marker },
    ];
    const item = await h.tracker.importIssue(story, comments);
    expect(item).toMatchObject({
      title: "Imported",
      description: "body",
      status: "closed:completed",
      labels: ["bug"],
      marker,
    });
    expect(item.comments.map((c) => c.body)).toEqual(["first", "second"]);
    expect(h.sandbox.stats().byRoute["POST /repos/:owner/:repo/import/issues"]).toBe(1);
    expect((await h.tracker.findByMarker(marker))?.id).toBe(item.id);
  });

  it("creates through the import API when importApi is on, closing with the reason afterwards", async () => {
    h = await startGithubHarness({ timeScale: 50 }, { importApi: true, timeScale: 50 });
    const parent = await h.tracker.create({ ...story, status: "open" });
    const task = await h.tracker.create({
      ...story,
      kind: "task",
      parentId: parent.id,
      status: "closed:not_planned",
    });
    expect(task).toMatchObject({ kind: "task", parentId: parent.id, status: "closed:not_planned" });
    expect(h.sandbox.stats().byRoute["POST /repos/:owner/:repo/issues"] ?? 0).toBe(0);
  });

  it("throws ImportFailedError naming the import errors", async () => {
    h = await startGithubHarness({ timeScale: 50 }, { importApi: true, timeScale: 50 });
    const err: unknown = await h.tracker
      .importIssue({ ...story, assignees: [{ login: "nobody-here" }] }, [])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportFailedError);
    expect((err as ImportFailedError).message).toMatch(/assignee/);
    expect((err as ImportFailedError).importErrors.length).toBeGreaterThan(0);
  });

  it("needs an admin token", async () => {
    h = await startGithubHarness({ timeScale: 50 }, { timeScale: 50 });
    const err = await h
      .tracker2({ token: h.sandbox.readToken })
      .importIssue(story, [])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionError);
  });
});
