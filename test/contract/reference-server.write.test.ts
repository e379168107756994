import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { all, at, childNames, textAt, xmlClient, type XmlClient } from "./support/tiny-xml.js";

const TODAY = new Date(2026, 0, 15, 12, 0, 0);

interface Ctx {
  server: ReferenceServer;
  api: XmlClient;
}

function withServer(apiVersion: "2.6" | "2.5", generate = "empty"): Ctx {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    ctx.server = await startReferenceServer({ apiVersion, generate, today: () => TODAY });
    ctx.api = xmlClient(ctx.server.url, ctx.server.token);
  });
  beforeEach(() => {
    ctx.server.reset();
  });
  afterAll(async () => {
    await ctx.server.close();
  });
  return ctx;
}

const FULL_STORY =
  "<userStory><name>Full story</name><description>Line 1\r\nLine 2</description>" +
  "<priority><id>2</id></priority><estimatedEffort>5.0</estimatedEffort>" +
  "<iteration><id>4</id></iteration><color>GREEN</color><owner><id>2</id></owner>" +
  "<acceptingUser><id>3</id></acceptingUser><acceptanceStatus>ACCEPTED</acceptanceStatus>" +
  "<tags><tag>backend</tag><tag>ux</tag></tags><position>9</position></userStory>";

async function createStory(api: XmlClient, xml = FULL_STORY, path = "/project/1/userstories") {
  const r = await api.post(path, xml);
  expect(r.status).toBe(201);
  return Number(textAt(r.doc, "id"));
}

describe("reference server writes, API 2.6", () => {
  const ctx = withServer("2.6");

  it("creates a story: 201, Location and an id object, then reads it back", async () => {
    const r = await ctx.api.post("/project/1/userstories", FULL_STORY);
    expect(r.status).toBe(201);
    expect(childNames(r.doc)).toEqual(["id"]);
    expect(r.doc.name).toBe("idObject");
    const id = textAt(r.doc, "id")!;
    expect(r.headers.get("location")).toBe(`${ctx.server.url}/userstory/${id}`);
    const story = await ctx.api.get(`/userstory/${id}`);
    expect(textAt(story.doc, "description")).toBe("Line 1\r\nLine 2");
    expect(story.body).toContain("Line 1&#xD;\nLine 2");
    expect(textAt(story.doc, "priority/name")).toBe("SHOULD_HAVE");
    expect(textAt(story.doc, "iteration/id")).toBe("4");
    expect(textAt(story.doc, "owner/login")).toBe("bob");
    expect(textAt(story.doc, "acceptingUser/login")).toBe("carol");
    expect(all(at(story.doc, "tags"), "tag").map((t) => t.text)).toEqual(["backend", "ux"]);
    expect(ctx.server.store.story(Number(id))?.color).toBe("GREEN");
  });

  it("adds the default task only with addDefaultTasks=true", async () => {
    const without = await createStory(ctx.api);
    expect(all((await ctx.api.get(`/userstory/${without}/tasks`)).doc, "task")).toHaveLength(0);
    const r = await ctx.api.post("/project/1/userstories?addDefaultTasks=true", FULL_STORY);
    const id = textAt(r.doc, "id")!;
    const tasks = all((await ctx.api.get(`/userstory/${id}/tasks`)).doc, "task");
    expect(tasks.map((t) => textAt(t, "name"))).toEqual([
      'Implement and test user story "Full story".',
    ]);
    expect(textAt(tasks[0]!, "status/id")).toBe("1");
  });

  it("creates in the current iteration (by today) and in any iteration", async () => {
    const current = await createStory(
      ctx.api,
      "<userStory><name>Now</name></userStory>",
      "/project/1/iteration/current/userstories",
    );
    expect(ctx.server.store.story(current)?.iterationId).toBe(3);
    const later = await createStory(
      ctx.api,
      "<userStory><name>Later</name><iteration><id>1</id></iteration></userStory>",
      "/iteration/5/userstories",
    );
    expect(ctx.server.store.story(later)?.iterationId).toBe(5);
    const listed = await ctx.api.get("/iteration/5/userstories");
    expect(all(listed.doc, "userStory").map((s) => textAt(s, "name"))).toEqual(["Later"]);
  });

  it("treats PUT as full replacement: every element left out becomes null", async () => {
    const id = await createStory(ctx.api);
    const put = await ctx.api.put(
      `/userstory/${id}`,
      "<userStory><name>Only a name</name></userStory>",
    );
    expect(put.status).toBe(200);
    const story = await ctx.api.get(`/userstory/${id}`);
    expect(childNames(story.doc)).toEqual(["id", "position", "name", "tags", "comments"]);
    expect(ctx.server.store.story(id)).toMatchObject({ tags: [], iterationId: undefined });
  });

  it("keeps what a complete PUT document carries", async () => {
    const id = await createStory(ctx.api);
    const before = await ctx.api.get(`/userstory/${id}`);
    const edited = before.body.replace("<color>GREEN</color>", "<color>RED</color>");
    expect((await ctx.api.put(`/userstory/${id}`, edited)).status).toBe(200);
    const after = await ctx.api.get(`/userstory/${id}`);
    expect(after.body).toBe(edited);
  });

  it("changes a task's status through a status id, taskStatusId or the legacy enum", async () => {
    const story = await createStory(ctx.api);
    const r = await ctx.api.post(
      `/userstory/${story}/tasks`,
      "<task><name>T</name><status><id>4</id></status><assignedUsers><user><id>1</id></user>" +
        "<user><id>5</id></user></assignedUsers><estimatedEffort>2.5</estimatedEffort></task>",
    );
    expect(r.status).toBe(201);
    const id = textAt(r.doc, "id")!;
    expect(r.headers.get("location")).toBe(`${ctx.server.url}/task/${id}`);
    let task = await ctx.api.get(`/task/${id}`);
    expect(textAt(task.doc, "status/name")).toBe("TESTING");
    expect(all(at(task.doc, "assignedUsers"), "user").map((u) => textAt(u, "login"))).toEqual([
      "alice",
      "erin",
    ]);
    await ctx.api.put(`/task/${id}`, "<task><name>T</name><taskStatusId>2</taskStatusId></task>");
    task = await ctx.api.get(`/task/${id}`);
    expect(textAt(task.doc, "status/name")).toBe("IN PROGRESS");
    expect(textAt(task.doc, "assignedUsers")).toBe(""); // full replacement emptied the list
    await ctx.api.put(`/task/${id}`, "<task><name>T</name><status>COMPLETED</status></task>");
    expect(ctx.server.store.task(Number(id))?.statusId).toBe(3);
    await ctx.api.put(`/task/${id}`, "<task><name>T</name><status>IN_PROGRESS</status></task>");
    expect(ctx.server.store.task(Number(id))?.statusId).toBe(2);
  });

  it("accepts the legacy singular task path", async () => {
    const story = await createStory(ctx.api);
    const r = await ctx.api.post(`/userstory/${story}/task`, "<task><name>Legacy</name></task>");
    expect(r.status).toBe(201);
  });

  it("adds comments honouring author and date, or defaulting them", async () => {
    const story = await createStory(ctx.api);
    const given = await ctx.api.post(
      `/userstory/${story}/comments`,
      "<comment><author>Old Timer</author><date>2011-05-06 07:08:09.010</date><body>Hi</body></comment>",
    );
    expect(given.status).toBe(201);
    expect(childNames(given.doc)).toEqual(["author", "date", "body"]);
    const defaulted = await ctx.api.post(
      `/userstory/${story}/comments`,
      "<comment><body>Yo</body></comment>",
    );
    expect(textAt(defaulted.doc, "author")).toBe("Alice Smith"); // the project owner
    expect(textAt(defaulted.doc, "date")).toBe("2026-01-15 12:00:00.000");
    const list = await ctx.api.get(`/userstory/${story}/comments`);
    expect(all(list.doc, "comment").map((c) => textAt(c, "author"))).toEqual([
      "Old Timer",
      "Alice Smith",
    ]);
    const detail = await ctx.api.get(`/userstory/${story}`);
    expect(all(at(detail.doc, "comments"), "comment")).toHaveLength(2);
  });

  it("upserts time entries per task, user and date; 0 removes", async () => {
    const story = await createStory(ctx.api);
    const task = textAt(
      (await ctx.api.post(`/userstory/${story}/tasks`, "<task><name>T</name></task>")).doc,
      "id",
    )!;
    const entry = (spent: string, user = 2, date = "2026-01-14") =>
      `<activity><date>${date}</date><timeSpent>${spent}</timeSpent><timeLeft>1</timeLeft><user><id>${user}</id></user></activity>`;
    const first = await ctx.api.post(`/task/${task}/timesheet`, entry("2"));
    expect(first.status).toBe(201);
    expect(textAt(first.doc, "timeSpent")).toBe("2.0");
    const again = await ctx.api.post(`/task/${task}/timesheet`, entry("3.5"));
    expect(again.status).toBe(200);
    await ctx.api.post(`/task/${task}/timesheet`, entry("1", 3));
    await ctx.api.post(`/task/${task}/timesheet`, entry("1", 2, "2026-01-13"));
    let sheet = all((await ctx.api.get(`/task/${task}/timesheet`)).doc, "activity");
    expect(
      sheet.map((a) => `${textAt(a, "date")}/${textAt(a, "user/id")}/${textAt(a, "timeSpent")}`),
    ).toEqual(["2026-01-13/2/1.0", "2026-01-14/2/3.5", "2026-01-14/3/1.0"]);
    await ctx.api.post(`/task/${task}/timesheet`, entry("0"));
    sheet = all((await ctx.api.get(`/task/${task}/timesheet`)).doc, "activity");
    expect(sheet).toHaveLength(2);
  });

  it("deletes a story with its tasks, comments and time entries", async () => {
    const story = await createStory(ctx.api);
    const task = textAt(
      (await ctx.api.post(`/userstory/${story}/tasks`, "<task><name>T</name></task>")).doc,
      "id",
    )!;
    await ctx.api.post(`/task/${task}/comments`, "<comment><body>c</body></comment>");
    await ctx.api.post(
      `/task/${task}/timesheet`,
      "<activity><date>2026-01-14</date><timeSpent>1</timeSpent><user><id>1</id></user></activity>",
    );
    const del = await ctx.api.del(`/userstory/${story}`);
    expect(del.status).toBe(200);
    expect(del.body).toBe("");
    expect((await ctx.api.get(`/userstory/${story}`)).status).toBe(404);
    expect((await ctx.api.get(`/task/${task}`)).status).toBe(404);
    expect(ctx.server.store.commentsOf("task", Number(task))).toHaveLength(0);
    expect(ctx.server.store.activitiesOfTask(Number(task))).toHaveLength(0);
    expect(ctx.server.store.commentsOf("story", story)).toHaveLength(0);
  });

  it("deletes a task with its comments and time entries", async () => {
    const story = await createStory(ctx.api);
    const task = textAt(
      (await ctx.api.post(`/userstory/${story}/tasks`, "<task><name>T</name></task>")).doc,
      "id",
    )!;
    await ctx.api.post(`/task/${task}/comments`, "<comment><body>c</body></comment>");
    expect((await ctx.api.del(`/task/${task}`)).status).toBe(200);
    expect(all((await ctx.api.get(`/userstory/${story}/tasks`)).doc, "task")).toHaveLength(0);
    expect(ctx.server.store.commentsOf("task", Number(task))).toHaveLength(0);
  });
});

describe("story listing filters", () => {
  const ctx = withServer("2.6", "medium");

  it("filters by status, owner, priority, acceptanceStatus and iteration", async () => {
    const ids = async (query: string) =>
      all((await ctx.api.get(`/project/1/userstories?${query}`)).doc, "userStory").map((s) =>
        Number(textAt(s, "id")),
      );
    const store = ctx.server.store;
    const owned = await ids("owner=2");
    expect(owned.length).toBeGreaterThan(0);
    expect(owned.every((id) => store.story(id)?.ownerId === 2)).toBe(true);
    const must = await ids("priority=MUST_HAVE");
    expect(must).toEqual(await ids("priority=1"));
    expect(must.every((id) => store.story(id)?.priority === 1)).toBe(true);
    const accepted = await ids("acceptanceStatus=ACCEPTED");
    expect(accepted.every((id) => store.story(id)?.acceptanceStatus === "ACCEPTED")).toBe(true);
    const backlog = await ids("iteration=backlog");
    expect(backlog.every((id) => store.story(id)?.iterationId === undefined)).toBe(true);
    const done = await ids("status=COMPLETED");
    expect(done.length).toBeGreaterThan(0);
    for (const id of done) {
      expect(store.tasksOf(id).every((t) => t.statusId === 3)).toBe(true);
    }
    const pending = await ids("status=PENDING");
    const progress = await ids("status=IN_PROGRESS");
    expect(pending.length + progress.length + done.length).toBe((await ids("")).length);
    const both = await ids("owner=2&priority=1");
    expect(both.every((id) => owned.includes(id) && must.includes(id))).toBe(true);
  });
});

describe("reference server writes, API 2.5", () => {
  const ctx = withServer("2.5");

  it("answers a create with 200, no body and no Location, and adds the default task", async () => {
    const r = await ctx.api.post(
      "/project/1/userstories",
      "<userStory><name>Old</name></userStory>",
    );
    expect(r.status).toBe(200);
    expect(r.body).toBe("");
    expect(r.headers.get("location")).toBeNull();
    const list = all((await ctx.api.get("/project/1/userstories")).doc, "userStory");
    const id = textAt(
      list.find((s) => textAt(s, "name") === "Old")!,
      "id",
    )!;
    const tasks = all((await ctx.api.get(`/userstory/${id}/tasks`)).doc, "task");
    expect(tasks.map((t) => textAt(t, "status"))).toEqual(["PENDING"]);
    const none = await ctx.api.post(
      "/project/1/userstories?addDefaultTasks=false",
      "<userStory><name>Bare</name></userStory>",
    );
    expect(none.status).toBe(200);
    expect(ctx.server.store.tasksOf(Number(id) + 1)).toHaveLength(0);
  });

  it("takes a task's status as the plain enum", async () => {
    await ctx.api.post("/project/1/userstories", "<userStory><name>S</name></userStory>");
    const r = await ctx.api.post(
      "/userstory/1/tasks",
      "<task><name>T</name><status>IN_PROGRESS</status></task>",
    );
    expect(r.status).toBe(200);
    const tasks = all((await ctx.api.get("/userstory/1/tasks")).doc, "task");
    expect(tasks.map((t) => textAt(t, "status"))).toEqual(["PENDING", "IN_PROGRESS"]);
  });
});
