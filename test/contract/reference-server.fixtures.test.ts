import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { xmlClient, type XmlClient } from "./support/tiny-xml.js";

/**
 * The example documents in test/fixtures/tinypm/ were written by hand from docs/tinypm-wire.md.
 * Loaded with the matching dataset below, the server must answer them byte for byte (after the
 * fixtures' indentation is removed).
 */
const FIXTURES = new URL("../fixtures/tinypm/", import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8")
    .replace(/>\n\s*</g, "><")
    .trim();
}

const user = (id: number, name: string, login: string, active: boolean, initials: string) => ({
  id,
  name,
  login,
  email: `${login}@example.com`,
  active,
  initials,
});

const DATASET = {
  users: [user(1, "Alice Smith", "alice", true, "AS"), user(2, "Bob Jones", "bob", false, "BJ")],
  projects: [
    {
      id: 1,
      code: "WID",
      name: "Widgets",
      description: "Widgets for everyone.\r\nSecond line.",
      startDate: "2011-09-01",
      targetFinishDate: "2011-12-31",
      ownerId: 1,
      taskStatuses: [
        { id: 1, name: "TO DO" },
        { id: 2, name: "IN PROGRESS" },
        { id: 4, name: "TESTING" },
        { id: 3, name: "COMPLETED" },
      ],
      estimates: [0, 0.5, 1, 2, 3, 5, 8],
      taskEstimates: [0, 0.5, 1, 2, 4],
      iterationLength: 14,
      defaultTask: 'Implement and test user story "{0}".',
      active: true,
    },
    {
      id: 2,
      code: "OLD",
      name: "Old stuff",
      taskStatuses: [{ id: 5, name: "PENDING" }],
      active: false,
    },
  ],
  iterations: [
    {
      id: 1,
      projectId: 1,
      name: "Sprint 1",
      goal: "Walking skeleton",
      plannedVelocity: 20,
      position: 1,
      startDate: "2011-10-03",
      duration: 14,
    },
    {
      id: 2,
      projectId: 1,
      name: "Sprint 2",
      plannedVelocity: 22.5,
      position: 2,
      startDate: "2011-10-17",
      duration: 14,
    },
  ],
  stories: [
    {
      id: 7,
      projectId: 1,
      position: 1,
      name: "Checkout & payment",
      description: "As a buyer\r\nI want to pay.",
      priority: 1,
      estimatedEffort: 5,
      iterationId: 1,
      color: "YELLOW",
      ownerId: 1,
      acceptingUserId: 2,
      acceptanceStatus: "PENDING",
      tags: ["backend", "ux"],
    },
    { id: 8, projectId: 1, position: 2, name: "Backlog item" },
  ],
  tasks: [
    {
      id: 12,
      storyId: 7,
      name: "Write tests",
      description: "Unit and contract tests",
      statusId: 2,
      estimatedEffort: 2,
      startedAt: "2011-10-04 09:30:00.000",
      assignedUserIds: [1, 2],
    },
    { id: 13, storyId: 7, name: "Deploy", statusId: 1 },
  ],
  comments: [
    {
      storyId: 7,
      author: "Alice Smith",
      date: "2012-02-04 21:17:47.765",
      body: "Looks good.\r\nShip it.",
    },
    { taskId: 12, author: "Bob Jones", date: "2011-10-05 10:00:00.000", body: "Half done" },
  ],
  activities: [
    { taskId: 12, userId: 1, date: "2011-10-04", timeSpent: 1.5, timeLeft: 0.5 },
    { taskId: 12, userId: 2, date: "2011-10-05", timeSpent: 2 },
  ],
};

const READS: readonly [string, string, readonly ("26" | "25")[]][] = [
  ["/users", "users", ["26", "25"]],
  ["/user/1", "user", ["26", "25"]],
  ["/projects", "projects", ["26", "25"]],
  ["/project/1", "project", ["26", "25"]],
  ["/project/1/iterations", "iterations", ["26", "25"]],
  ["/project/1/userstories", "userstories", ["26", "25"]],
  ["/userstory/7", "userstory", ["26", "25"]],
  ["/userstory/7/tasks", "tasks", ["26", "25"]],
  ["/task/12", "task", ["26", "25"]],
  ["/userstory/7/comments", "comments", ["26"]],
  ["/iteration/1/timesheet", "timesheet", ["26"]],
  ["/userstory/99", "error", ["26", "25"]],
];

for (const version of ["26", "25"] as const) {
  describe(`the wire fixtures, API ${version[0]}.${version[1]}`, () => {
    let server: ReferenceServer;
    let api: XmlClient;
    beforeAll(async () => {
      server = await startReferenceServer({
        dataset: DATASET,
        apiVersion: version === "26" ? "2.6" : "2.5",
      });
      api = xmlClient(server.url, server.token);
    });
    afterAll(async () => {
      await server.close();
    });

    const reads = READS.filter(([, , versions]) => versions.includes(version));
    it.each(reads)("GET %s answers %s.v%s.xml", async (path, name) => {
      const r = await api.get(path);
      expect(r.body).toBe(fixture(`${name}.v${version}.xml`));
    });

    it("stores the example request bodies as documented", async () => {
      server.reset();
      const created = await api.post("/project/1/userstories", fixture("userstory.request.xml"));
      expect(created.status).toBe(version === "26" ? 201 : 200);
      const idObject = fixture("id-object.v26.xml").replace("7", "9");
      expect(created.body).toBe(version === "26" ? idObject : "");
      const story = await api.get("/userstory/9");
      const expected = fixture(`userstory.v${version}.xml`)
        .replace("<id>7</id><position>", "<id>9</id><position>")
        .replace(/<comments>[^]*<\/comments>/, "<comments/>");
      expect(story.body).toBe(expected);
      await api.put("/task/12", fixture(`task.request.v${version}.xml`));
      const task = await api.get("/task/12");
      expect(task.body).toBe(fixture(`task.v${version}.xml`));
    });

    it.runIf(version === "26")("answers comment and activity posts as documented", async () => {
      server.reset();
      const comment = await api.post("/task/13/comments", fixture("comment.request.xml"));
      expect(comment.body).toBe(fixture("comment.v26.xml"));
      const activity = await api.post("/task/12/timesheet", fixture("activity.request.xml"));
      expect(activity.status).toBe(200);
      expect(activity.body).toBe(fixture("activity.v26.xml"));
    });
  });
}
