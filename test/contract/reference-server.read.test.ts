import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import {
  all,
  at,
  childNames,
  followsOrder,
  textAt,
  xmlClient,
  type XmlClient,
} from "./support/tiny-xml.js";

const TODAY = new Date(2026, 0, 15, 12, 0, 0);
const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

interface Ctx {
  server: ReferenceServer;
  api: XmlClient;
}

function withServer(apiVersion: "2.6" | "2.5"): Ctx {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    ctx.server = await startReferenceServer({
      apiVersion,
      generate: "small",
      seed: 3,
      today: () => TODAY,
    });
    ctx.api = xmlClient(ctx.server.url, ctx.server.token);
  });
  afterAll(async () => {
    await ctx.server.close();
  });
  return ctx;
}

describe("reference server reads, API 2.6", () => {
  const ctx = withServer("2.6");

  it("lists users in the alphabetical listing form, inactive ones included", async () => {
    const r = await ctx.api.get("/users");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/xml;charset=UTF-8");
    expect(r.body.startsWith(`${DECL}<users><user><active>`)).toBe(true);
    const users = all(r.doc, "user");
    expect(users.map((u) => childNames(u))).toContainEqual(["active", "id", "name"]);
    expect(users.some((u) => textAt(u, "active") === "false")).toBe(true);
    expect(users.map((u) => textAt(u, "name"))).toContain("Zoë Ångström");
  });

  it("answers one user in the detail form with initials", async () => {
    const r = await ctx.api.get("/user/1");
    expect(childNames(r.doc)).toEqual(["id", "name", "login", "email", "active", "initials"]);
    expect(textAt(r.doc, "login")).toBe("alice");
    expect(textAt(r.doc, "email")).toBe("alice@example.com");
  });

  it("lists projects and details one with task statuses, estimates and task estimates", async () => {
    const list = await ctx.api.get("/projects");
    expect(childNames(at(list.doc, "project"))).toEqual(["active", "code", "id", "name"]);
    const r = await ctx.api.get("/project/1");
    expect(childNames(r.doc)).toEqual([
      "id",
      "code",
      "name",
      "description",
      "startDate",
      "targetFinishDate",
      "owner",
      "taskStatuses",
      "estimates",
      "taskEstimates",
      "iterationLength",
      "defaultTask",
      "active",
    ]);
    expect(textAt(r.doc, "code")).toBe("WID");
    const statuses = all(at(r.doc, "taskStatuses"), "status");
    expect(statuses.map((s) => `${textAt(s, "id")} ${textAt(s, "name")}`)).toEqual([
      "1 TO DO",
      "2 IN PROGRESS",
      "4 TESTING",
      "3 COMPLETED",
    ]);
    expect(all(at(r.doc, "estimates"), "value").map((v) => v.text)).toContain("0.5");
    expect(all(at(r.doc, "estimates"), "value").map((v) => v.text)).toContain("20.0");
    expect(textAt(r.doc, "defaultTask")).toContain("{0}");
    expect(r.body).toContain("&#xD;");
    expect(textAt(r.doc, "startDate")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(childNames(at(r.doc, "owner"))).toEqual([
      "id",
      "name",
      "login",
      "email",
      "active",
      "initials",
    ]);
  });

  it("lists iterations with past, current and future ones", async () => {
    const r = await ctx.api.get("/project/1/iterations");
    const its = all(r.doc, "iteration");
    expect(childNames(its[0])).toEqual([
      "id",
      "name",
      "goal",
      "plannedVelocity",
      "position",
      "startDate",
      "duration",
    ]);
    const starts = its.map((it) => textAt(it, "startDate") ?? "");
    expect(starts.filter((s) => s < "2026-01-15").length).toBeGreaterThanOrEqual(2);
    expect(starts.filter((s) => s > "2026-01-15").length).toBeGreaterThanOrEqual(2);
    expect(textAt(its[4]!, "plannedVelocity")).toBeUndefined(); // null fields are omitted
  });

  it("lists stories with iterationId, position and tags, ordered by position", async () => {
    const r = await ctx.api.get("/project/1/userstories");
    const stories = all(r.doc, "userStory");
    expect(stories).toHaveLength(5);
    expect(childNames(stories[0])).toEqual(["id", "name", "position", "tags"]); // backlog
    expect(childNames(stories[1])).toEqual(["id", "iterationId", "name", "position", "tags"]);
    const positions = stories.map((s) => Number(textAt(s, "position")));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(r.body).toContain("<tags/>");
  });

  it("lists the stories of the current iteration (decided by today) and of any iteration", async () => {
    const current = await ctx.api.get("/project/1/iteration/current/userstories");
    const ids = all(current.doc, "userStory").map((s) => textAt(s, "iterationId"));
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids)).toEqual(new Set(["3"]));
    const past = await ctx.api.get("/iteration/1/userstories");
    expect(all(past.doc, "userStory").every((s) => textAt(s, "iterationId") === "1")).toBe(true);
  });

  it("details a story in domain order with priority, iteration, users, tags and comments", async () => {
    const r = await ctx.api.get("/userstory/3");
    expect(childNames(r.doc)).toEqual(expect.arrayContaining(["id", "position", "name", "tags"]));
    expect(
      followsOrder(childNames(r.doc), [
        "id",
        "position",
        "name",
        "description",
        "priority",
        "estimatedEffort",
        "iteration",
        "color",
        "owner",
        "acceptingUser",
        "acceptanceStatus",
        "tags",
        "comments",
      ]),
    ).toBe(true);
    expect(childNames(at(r.doc, "priority"))).toEqual(["id", "name", "priority"]);
    expect(textAt(r.doc, "priority/name")).toBe("COULD_HAVE");
    expect(textAt(r.doc, "iteration/id")).toBe("3");
    const comment = at(r.doc, "comments/comment");
    expect(childNames(comment)).toEqual(["author", "date", "body"]);
    expect(textAt(comment!, "date")).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    const efforts0 = await Promise.all([1, 2, 4, 5].map((id) => ctx.api.get(`/userstory/${id}`)));
    const efforts = efforts0.map((x) => textAt(x.doc, "estimatedEffort")).filter(Boolean);
    expect(efforts.length).toBeGreaterThan(0);
    for (const e of efforts) expect(e).toMatch(/^\d+\.\d+$/);
  });

  it("lists and details tasks with the project's configurable statuses", async () => {
    const list = await ctx.api.get("/userstory/3/tasks");
    const tasks = all(list.doc, "task");
    expect(tasks).toHaveLength(3);
    expect(childNames(tasks[0])).toEqual(["id", "name", "status"]);
    expect(childNames(at(tasks[0]!, "status"))).toEqual(["id", "name"]);
    const r = await ctx.api.get(`/task/${textAt(tasks[0]!, "id")}`);
    const names = childNames(r.doc);
    const order = ["id", "name", "description", "status", "estimatedEffort", "startedAt"];
    order.push("completedAt", "assignedUsers", "comments");
    expect(followsOrder(names, order)).toBe(true);
    expect(names.slice(-2)).toEqual(["assignedUsers", "comments"]);
    expect(["1", "2", "3", "4"]).toContain(textAt(r.doc, "status/id"));
  });

  it("answers comments and timesheets of stories, tasks and iterations", async () => {
    const comments = await ctx.api.get("/userstory/1/comments");
    expect(all(comments.doc, "comment")).toHaveLength(2);
    const task = await ctx.api.get("/task/7/comments");
    expect(task.doc.name).toBe("comments");
    const sheet = await ctx.api.get("/iteration/3/timesheet");
    const activities = all(sheet.doc, "activity");
    expect(activities.length).toBeGreaterThan(0);
    expect(childNames(activities[0]).filter((n) => n !== "timeLeft")).toEqual([
      "date",
      "timeSpent",
      "user",
      "task",
      "userStory",
    ]);
    const keys = activities.map((a) => `${textAt(a, "date")} ${textAt(a, "user/id")!.padStart(3)}`);
    expect(keys).toEqual([...keys].sort());
    const taskId = textAt(activities[0]!, "task/id")!;
    const own = await ctx.api.get(`/task/${taskId}/timesheet`);
    expect(all(own.doc, "activity").every((a) => textAt(a, "task/id") === taskId)).toBe(true);
  });
});

describe("reference server reads, API 2.5", () => {
  const ctx = withServer("2.5");

  it("writes no declaration and no 2.6 fields", async () => {
    const user = await ctx.api.get("/user/1");
    expect(user.body.startsWith("<user>")).toBe(true);
    expect(childNames(user.doc)).toEqual(["id", "name", "login", "email", "active"]);
    const project = await ctx.api.get("/project/1");
    expect(childNames(project.doc)).not.toContain("taskStatuses");
    expect(childNames(project.doc)).not.toContain("taskEstimates");
    expect(childNames(project.doc)).toContain("estimates");
  });

  it("lists stories with id and name only, and details them without tags or comments", async () => {
    const list = await ctx.api.get("/project/1/userstories");
    expect(childNames(at(list.doc, "userStory"))).toEqual(["id", "name"]);
    const current = await ctx.api.get("/project/1/iteration/current/userstories");
    expect(all(current.doc, "userStory").length).toBeGreaterThan(0);
    const story = await ctx.api.get("/userstory/3");
    expect(childNames(story.doc)).not.toContain("tags");
    expect(childNames(story.doc)).not.toContain("comments");
  });

  it("writes a task's status as the plain enum", async () => {
    const list = await ctx.api.get("/userstory/3/tasks");
    const statuses = all(list.doc, "task").map((t) => textAt(t, "status"));
    for (const s of statuses) expect(["PENDING", "IN_PROGRESS", "COMPLETED"]).toContain(s);
    const task = await ctx.api.get("/task/7");
    expect(at(task.doc, "status")?.children).toEqual([]);
    expect(childNames(task.doc)).not.toContain("comments");
  });

  it("has no comments, timesheet or any-iteration endpoints", async () => {
    for (const path of [
      "/userstory/1/comments",
      "/task/7/comments",
      "/task/7/timesheet",
      "/iteration/3/timesheet",
      "/iteration/3/userstories",
    ]) {
      expect({ path, status: (await ctx.api.get(path)).status }).toEqual({ path, status: 404 });
    }
  });
});
