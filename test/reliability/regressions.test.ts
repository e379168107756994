import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import { ConflictError, RateLimitError, RemoteUnavailableError } from "../../src/core/errors.js";
import type { WorkItemDraft } from "../../src/core/model.js";
import { startReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { listAll } from "./snapshot.js";

// Bugs the reliability suite found, each pinned by a small test of its own.
describe("GitHub adapter under faults", () => {
  let sandbox: GithubSandbox;
  beforeAll(async () => {
    sandbox = await startGithubSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const tracker = () =>
    createGithubTracker({
      baseUrl: sandbox.url,
      token: sandbox.token,
      owner: sandbox.owner,
      repo: sandbox.repo,
      timeoutMs: 2_000,
    });

  it("reports a JSON body cut off in transit as a transient failure, not a bad payload", async () => {
    sandbox.setFaults("truncate");
    try {
      const error: unknown = await tracker()
        .listUsers()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(RemoteUnavailableError);
      expect((error as RemoteUnavailableError).transient).toBe(true);
    } finally {
      sandbox.setFaults("");
    }
    expect((await tracker().listUsers()).length).toBeGreaterThan(0);
  });
});

describe("GitHub creates that fail half-way", () => {
  let sandbox: GithubSandbox;
  beforeAll(async () => {
    sandbox = await startGithubSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const tracker = () =>
    createGithubTracker({
      baseUrl: sandbox.url,
      token: sandbox.token,
      owner: sandbox.owner,
      repo: sandbox.repo,
    });
  const draft = (kind: "story" | "task", originId: string, parentId?: string): WorkItemDraft => ({
    kind,
    title: `${kind} ${originId}`,
    status: "open",
    assignees: [],
    labels: [],
    parentId,
    marker: { job: "regress", origin: "tinypm", originKind: kind, originId },
  });
  const SUB_ISSUES = "@POST /repos/*/*/issues/*/sub_issues";

  it("finish the issue on a retry after a rate limit instead of creating a second one", async () => {
    const t = tracker();
    const story = await t.create(draft("story", "1"));
    sandbox.setFaults(`429=0${SUB_ISSUES}`);
    await expect(t.create(draft("task", "2", story.id))).rejects.toBeInstanceOf(RateLimitError);
    sandbox.setFaults("");
    const task = await t.create(draft("task", "2", story.id));
    expect(task.parentId).toBe(story.id);
    const titles = (await listAll(tracker())).map((i) => i.title);
    expect(titles.filter((x) => x === "task 2")).toHaveLength(1);
  });

  it("finish the issue when a recovery by marker finds it after an ambiguous failure", async () => {
    const t = tracker();
    const story = await t.create(draft("story", "3"));
    sandbox.setFaults(`500${SUB_ISSUES}`);
    const task = draft("task", "4", story.id);
    await expect(t.create(task)).rejects.toBeInstanceOf(RemoteUnavailableError);
    sandbox.setFaults("");
    const found = await t.findByMarker(task.marker!);
    expect(found?.parentId).toBe(story.id);
    const fresh = await tracker().get({ kind: "task", id: found?.id ?? "" });
    expect(fresh?.parentId).toBe(story.id);
  });
});

describe("tinyPM full-replacement update repeated after a lost answer", () => {
  it("finds its own earlier PUT and succeeds, writing nothing else", async () => {
    const server = await startReferenceServer({ generate: "stories=2,tasks=1,comments=0" });
    const t = createTinypmTracker({ baseUrl: server.url, token: server.token, projectId: 1 });
    try {
      const base = (await listAll(t)).find((i) => i.kind === "story");
      if (base === undefined) throw new Error("no story");
      const patch = { set: { description: "Changed once." }, base };
      await t.update({ kind: "story", id: base.id }, patch);
      // The retry of the same call (its answer was lost) must not report a conflict.
      const again = await t.update({ kind: "story", id: base.id }, patch);
      expect(again.description).toBe("Changed once.");
      expect(again.title).toBe(base.title);
      // A real concurrent change of another value is still a conflict.
      const other = { set: { description: "Something else." }, base };
      await expect(t.update({ kind: "story", id: base.id }, other)).rejects.toBeInstanceOf(
        ConflictError,
      );
    } finally {
      await t.close();
      await server.close();
    }
  });
});

describe("Jira adapter under faults", () => {
  let sandbox: JiraSandbox;
  beforeAll(async () => {
    sandbox = await startJiraSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const tracker = () =>
    createJiraTracker({
      baseUrl: sandbox.url,
      projectKey: sandbox.projectKey,
      email: sandbox.email,
      token: sandbox.token,
    });

  it("reports a JSON body cut off in transit as a transient failure", async () => {
    sandbox.setFaults("truncate@GET /rest/api/3/field");
    try {
      const error: unknown = await listAll(tracker()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RemoteUnavailableError);
      expect((error as RemoteUnavailableError).transient).toBe(true);
    } finally {
      sandbox.setFaults("");
    }
  });

  it("finishes a create whose transition was rate limited instead of creating it again", async () => {
    const t = tracker();
    const draft: WorkItemDraft = {
      kind: "story",
      title: "finished later",
      status: "Done",
      assignees: [],
      labels: [],
      marker: { job: "regress", origin: "tinypm", originKind: "story", originId: "77" },
    };
    sandbox.setFaults("429=0@POST /rest/api/3/issue/*/transitions");
    await expect(t.create(draft)).rejects.toBeInstanceOf(RateLimitError);
    sandbox.setFaults("");
    const item = await t.create(draft);
    expect(item.status).toBe("Done");
    const same = (await listAll(tracker())).filter((i) => i.title === "finished later");
    expect(same).toHaveLength(1);
  });
});
