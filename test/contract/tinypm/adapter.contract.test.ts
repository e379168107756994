import { afterEach, describe, expect, it } from "vitest";
import {
  AuthError,
  ConflictError,
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  RemoteUnavailableError,
  UsageError,
} from "../../../src/core/errors.js";
import { createTinypmTracker } from "../../../src/adapters/tinypm/index.js";
import { startTinypm, type TinypmFixture } from "./setup.js";
import { countingGate } from "../../support/counting-gate.js";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

let fixture: TinypmFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function start(...args: Parameters<typeof startTinypm>): Promise<TinypmFixture> {
  fixture = await startTinypm(...args);
  return fixture;
}

describe.each(["2.6", "2.5"] as const)("tinyPM adapter reads (%s)", (apiVersion) => {
  it("detects the server version once, and reads project, users, projects and iterations", async () => {
    const f = await start({ apiVersion });
    expect(await f.tracker.serverVersion()).toBe(apiVersion);
    const project = await f.tracker.getProject();
    expect(project.id).toBe("1");
    expect(project.name).not.toBe("");
    const users = await f.tracker.listUsers();
    expect(users.length).toBeGreaterThan(1);
    for (const u of users) expect(u.login).toBeTruthy();
    const projects = await f.tracker.listProjects();
    expect(projects.map((p) => p.id)).toContain("1");
    const iterations = await f.tracker.listIterations();
    expect(iterations.length).toBeGreaterThan(0);
    const probeCalls = f.proxy.seen.filter((r) => r.url === "/api/project/1").length;
    await f.tracker.serverVersion();
    expect(f.proxy.seen.filter((r) => r.url === "/api/project/1").length).toBe(probeCalls);
  });

  it("lists stories with comments and tasks with their statuses and time entries", async () => {
    const f = await start({ apiVersion });
    const items = await collect(f.tracker.list({}));
    const stories = items.filter((i) => i.kind === "story");
    const tasks = items.filter((i) => i.kind === "task");
    expect(stories).toHaveLength(5);
    expect(tasks.length).toBe(15);
    const statuses = (await f.tracker.listTaskStatuses()).map((s) => s.name);
    for (const t of tasks) {
      expect(statuses).toContain(t.status);
      expect(stories.map((s) => s.id)).toContain(t.parentId);
    }
    expect(stories.some((s) => s.comments.length > 0)).toBe(apiVersion === "2.6");
    expect(statuses).toEqual(
      apiVersion === "2.6"
        ? ["TO DO", "IN PROGRESS", "TESTING", "COMPLETED"]
        : ["PENDING", "IN_PROGRESS", "COMPLETED"],
    );
  });

  it("lists one story's tasks, and finds a task's story on get", async () => {
    const f = await start({ apiVersion });
    const [story] = await collect(f.tracker.list({ kind: "story" }));
    const tasks = await collect(f.tracker.list({ parentId: story!.id }));
    expect(tasks.length).toBe(3);
    const fresh = createTinypmTracker({
      baseUrl: f.proxy.url,
      token: f.server.token,
      projectId: 1,
    });
    try {
      expect((await fresh.get({ kind: "task", id: tasks[0]!.id }))?.parentId).toBe(story!.id);
    } finally {
      await fresh.close();
    }
  });

  it("gets undefined for a missing item and throws NotFoundError deleting one", async () => {
    const f = await start({ apiVersion });
    expect(await f.tracker.get({ kind: "task", id: "999999" })).toBeUndefined();
    expect(await errorOf(f.tracker.delete({ kind: "task", id: "999999" }))).toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe.each(["2.6", "2.5"] as const)("tinyPM adapter writes (%s)", (apiVersion) => {
  it("creates a story in an iteration with every field and reads it back unchanged", async () => {
    const f = await start({ apiVersion, generate: "empty" });
    const [iteration] = await f.tracker.listIterations();
    const [alice, bob] = await f.tracker.listUsers();
    const draft = {
      kind: "story" as const,
      title: "Ünïcode «story» & <tags>\r\nsecond line",
      description: "a\r\nb &amp; c",
      status: "ACCEPTED",
      priority: "COULD_HAVE",
      estimate: 3.5,
      iteration: { name: iteration!.name },
      assignees: [alice!],
      acceptingUser: bob!,
      labels: apiVersion === "2.6" ? ["backend", "ünï"] : [],
      color: "GREEN",
    };
    const created = await f.tracker.create(draft);
    const read = (await f.tracker.get({ kind: "story", id: created.id }))!;
    expect(read).toMatchObject({
      title: draft.title,
      description: draft.description,
      status: "ACCEPTED",
      priority: "COULD_HAVE",
      estimate: 3.5,
      iteration: { id: iteration!.id, name: iteration!.name },
      labels: draft.labels,
      color: "GREEN",
    });
    expect(read.assignees.map((u) => u.id)).toEqual([alice!.id]);
    expect(read.acceptingUser?.id).toBe(bob!.id);
  });

  it("creates a task with status, assignees and dates, and writes status by name", async () => {
    const f = await start({ apiVersion, generate: "empty" });
    const story = await f.tracker.create({
      kind: "story",
      title: "S",
      status: "PENDING",
      assignees: [],
      labels: [],
    });
    const statuses = await f.tracker.listTaskStatuses();
    const users = await f.tracker.listUsers();
    const task = await f.tracker.create({
      kind: "task",
      parentId: story.id,
      title: "T",
      description: "d",
      status: statuses[1]!.name,
      estimate: 2,
      assignees: [users[0]!, users[1]!],
      labels: [],
      startedAt: "2012-02-04T21:17:47.765",
    });
    expect(task).toMatchObject({
      parentId: story.id,
      status: statuses[1]!.name,
      estimate: 2,
      startedAt: "2012-02-04T21:17:47.765",
    });
    expect(task.assignees.map((u) => u.id)).toEqual([users[0]!.id, users[1]!.id]);
    const done = await f.tracker.update(
      { kind: "task", id: task.id },
      { set: { status: statuses.at(-1)!.name } },
    );
    expect(done.status).toBe(statuses.at(-1)!.name);
    const error = await errorOf(
      f.tracker.update({ kind: "task", id: task.id }, { set: { status: "NOT A STATUS" } }),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(statuses[0]!.name);
  });

  it("updates one field and keeps every other field, unknown ones included", async () => {
    const f = await start({ apiVersion });
    const [before] = await collect(f.tracker.list({ kind: "story" }));
    const after = await f.tracker.update(
      { kind: "story", id: before!.id },
      { set: { title: "renamed" }, base: before! },
    );
    expect(after).toEqual({ ...before, title: "renamed" });
    const put = f.proxy.seen.find((r) => r.method === "PUT");
    expect(put?.body).toContain("<name>renamed</name>");
  });

  it("throws ConflictError and writes nothing when a field being written changed since the base", async () => {
    const f = await start({ apiVersion });
    const [before] = await collect(f.tracker.list({ kind: "story" }));
    await f.tracker.update({ kind: "story", id: before!.id }, { set: { color: "RED" } });
    const puts = f.proxy.seen.filter((r) => r.method === "PUT").length;
    const error = await errorOf(
      f.tracker.update(
        { kind: "story", id: before!.id },
        { set: { title: "x", color: "BLUE" }, base: { ...before!, color: "GREEN" } },
      ),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ details: { fields: ["color"] } });
    expect(f.proxy.seen.filter((r) => r.method === "PUT").length).toBe(puts);
  });

  it("writes when only a field it does not write changed since the base, keeping that change", async () => {
    const f = await start({ apiVersion });
    const [before] = await collect(f.tracker.list({ kind: "story" }));
    await f.tracker.update({ kind: "story", id: before!.id }, { set: { color: "RED" } });
    const after = await f.tracker.update(
      { kind: "story", id: before!.id },
      { set: { title: "x" }, base: { ...before!, color: "BLUE" } },
    );
    expect(after).toMatchObject({ title: "x", color: "RED" });
  });

  it("refuses an unknown iteration with a clear error (no iteration API in tinyPM 2.x)", async () => {
    const f = await start({ apiVersion });
    const [first] = await f.tracker.listIterations();
    expect(await f.tracker.ensureIteration({ name: first!.name })).toEqual(first);
    const error = await errorOf(f.tracker.ensureIteration({ name: "Nope" }));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/no API to create iterations/);
  });
});

describe("tinyPM 2.6 comments and timesheets", () => {
  it("adds a comment keeping author and date, and upserts a time entry per task, user and date", async () => {
    const f = await start({ apiVersion: "2.6", generate: "empty" });
    const users = await f.tracker.listUsers();
    const story = await f.tracker.create({
      kind: "story",
      title: "S",
      status: "PENDING",
      assignees: [],
      labels: [],
    });
    const task = await f.tracker.create({
      kind: "task",
      parentId: story.id,
      title: "T",
      status: "TO DO",
      assignees: [],
      labels: [],
    });
    await f.tracker.addComment(
      { kind: "task", id: task.id },
      {
        author: { name: users[1]!.name },
        createdAt: "2012-02-04T21:17:47.765",
        body: "one\r\ntwo",
      },
    );
    const comments = await f.tracker.listComments({ kind: "task", id: task.id });
    expect(comments).toEqual([
      { author: users[1], createdAt: "2012-02-04T21:17:47.765", body: "one\r\ntwo" },
    ]);
    await f.tracker.addTimeEntry(
      { kind: "task", id: task.id },
      { user: users[0]!, date: "2024-01-02", hours: 2, remainingHours: 3 },
    );
    await f.tracker.addTimeEntry(
      { kind: "task", id: task.id },
      { user: users[0]!, date: "2024-01-02", hours: 1.5 },
    );
    const entries = await f.tracker.listTimeEntries(task.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      date: "2024-01-02",
      hours: 1.5,
      user: { id: users[0]!.id },
    });
  });
});

describe("tinyPM 2.6 comments from their endpoint", () => {
  it("reads a story's comments from /userstory/{id}/comments when the detail has none inline", async () => {
    const f = await start({ apiVersion: "2.6" });
    const [story] = await collect(f.tracker.list({ kind: "story" }));
    expect(story!.comments.length).toBeGreaterThan(0);
    f.proxy.override({
      body: `<userStory><id>${story!.id}</id><name>${story!.title.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</name><acceptanceStatus>${story!.status}</acceptanceStatus></userStory>`,
    });
    const read = await f.tracker.get({ kind: "story", id: story!.id });
    expect(read?.comments).toEqual(story!.comments);
    expect(f.proxy.seen.at(-1)?.url).toBe(`/api/userstory/${story!.id}/comments`);
  });
});

describe("tinyPM adapter errors", () => {
  it("turns a wrong token into AuthError without the token anywhere", async () => {
    const secret = "0123456789abcdef0123456789abcdef";
    const f = await start({ apiVersion: "2.6", trackerToken: secret });
    const error = await errorOf(f.tracker.getProject());
    expect(error).toBeInstanceOf(AuthError);
    expect(
      JSON.stringify({
        m: (error as Error).message,
        d: (error as AuthError).details,
        c: String((error as Error).cause),
      }),
    ).not.toContain(secret);
    expect((await f.tracker.probe()).authenticated).toBe(false);
    for (const r of f.proxy.seen) expect(r.url).not.toContain(secret);
  });

  it("logs one debug line per HTTP call, never with the token", async () => {
    const f = await start({ apiVersion: "2.6" });
    const lines: string[] = [];
    const gate = countingGate("tinypm");
    const logged = createTinypmTracker({
      baseUrl: f.proxy.url,
      token: f.server.token,
      projectId: 1,
      logger: { debug: (obj, msg) => lines.push(JSON.stringify({ ...obj, msg })) },
      gate,
    });
    try {
      await collect(logged.list({ kind: "story" }));
      expect(lines.length).toBe(gate.counters().reads);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join("\n")).toMatch(/"method":"GET","path":"\/project\/1","status":200/);
      for (const line of lines) expect(line).not.toContain(f.server.token);
      for (const r of f.proxy.seen) expect(r.url).not.toContain(f.server.token);
    } finally {
      await logged.close();
    }
  });

  it.each(["text/xml", "application/xml;charset=UTF-8"])(
    "reads %s responses with or without a declaration",
    async (contentType) => {
      const f = await start({ apiVersion: "2.6" });
      f.proxy.override({
        headers: { "content-type": contentType },
        body: "<projects><project><active>true</active><code>a</code><id>1</id><name>A&#xD;B</name></project></projects>",
      });
      expect(await f.tracker.listProjects()).toEqual([
        { id: "1", code: "a", name: "A\rB", active: true },
      ]);
    },
  );

  it("turns a 400 into PayloadInvalidError naming the endpoint and quoting the server", async () => {
    const f = await start({ apiVersion: "2.6", generate: "empty" });
    const error = await errorOf(
      f.tracker.create({ kind: "story", title: "", status: "PENDING", assignees: [], labels: [] }),
    );
    expect(error).toBeInstanceOf(PayloadInvalidError);
    expect((error as Error).message).toMatch(/POST \/project\/\{id\}\/userstories.*400: .*name/);
  });

  it("refuses comments and time entries on 2.0–2.5 servers with a clear error", async () => {
    const f = await start({ apiVersion: "2.5" });
    const [story] = await collect(f.tracker.list({ kind: "story" }));
    const ref = { kind: "story" as const, id: story!.id };
    const error = await errorOf(
      f.tracker.addComment(ref, { author: { name: "x" }, createdAt: "", body: "b" }),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/2\.0–2\.5 has no comment API/);
    expect(f.tracker.capabilities.comments).toBe(false);
  });

  it("turns a disabled API into PermissionError", async () => {
    const f = await start({ apiVersion: "2.6", apiDisabled: true });
    expect(await errorOf(f.tracker.getProject())).toBeInstanceOf(PermissionError);
  });

  it.each([
    [
      "a DOCTYPE",
      `<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x "y">]><project><id>1</id><name>&x;</name></project>`,
    ],
    [
      "nesting deeper than the limit",
      `<project><id>1</id>${"<x>".repeat(500)}${"</x>".repeat(500)}</project>`,
    ],
    ["a schema mismatch", `<project><id>one</id></project>`],
  ])("rejects %s with PayloadInvalidError naming the endpoint", async (_label, body) => {
    const f = await start({ apiVersion: "2.6" });
    f.proxy.override({ body });
    const error = await errorOf(f.tracker.getProject());
    expect(error).toBeInstanceOf(PayloadInvalidError);
    expect((error as Error).message).toContain("GET /project/{id}");
  });

  it("rejects a response over the size limit without reading it all", async () => {
    const f = await start({ apiVersion: "2.6", maxResponseBytes: 64 * 1024 });
    f.proxy.override({
      body: `<project><id>1</id><name>${"x".repeat(1024 * 1024)}</name></project>`,
    });
    expect(await errorOf(f.tracker.getProject())).toBeInstanceOf(PayloadInvalidError);
  });

  it("turns 5xx and refused connections into RemoteUnavailableError", async () => {
    const f = await start({ apiVersion: "2.6" });
    f.proxy.override({
      status: 503,
      body: "<error><status>503</status><message>down</message></error>",
    });
    const error = await errorOf(f.tracker.getProject());
    expect(error).toBeInstanceOf(RemoteUnavailableError);
    expect((error as Error).message).toContain("down");
    const dead = createTinypmTracker({
      baseUrl: "http://127.0.0.1:9/api",
      token: "t",
      projectId: 1,
    });
    expect(await errorOf(dead.getProject())).toBeInstanceOf(RemoteUnavailableError);
    expect((await dead.probe()).reachable).toBe(false);
    await dead.close();
  });

  it("probes a healthy server", async () => {
    const f = await start({ apiVersion: "2.5" });
    const probe = await f.tracker.probe();
    expect(probe).toMatchObject({ reachable: true, authenticated: true, projectVisible: true });
    expect(probe.details).toContain("tinyPM 2.5");
  });
});
