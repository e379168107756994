/** GitHub comments, time entries, milestones, labels and users under the default mapping. */
import { describe, expect, it } from "vitest";
import { MappingError } from "../../../src/core/errors.js";
import { defaultMapping, readBack, sampleStory, sampleTask, user } from "./fixtures.js";

const m = defaultMapping("github");
const J = "\u2060";

describe("GitHub comments", () => {
  const comment = {
    author: user(1),
    createdAt: "2012-02-04T21:17:47.765",
    body: "Thanks @ana, see #3",
  };

  it("start with a line naming the tinyPM author by login and the date, mentions made inert", () => {
    const out = m.commentToTarget(comment);
    const [first, , ...rest] = out.body.split("\n");
    expect(first).toMatch(
      /^\*\*user1\*\* wrote in tinyPM on 2012-02-04 21:17: <!-- tinypm-sync:comment /,
    );
    // No personal data in the note or on the line: login and tinyPM user id only.
    expect(first).not.toContain("User 1");
    expect(first).not.toContain("@example.com");
    expect(first).toContain('"login":"user1"');
    expect(rest.join("\n")).toBe(`Thanks @${J}ana, see #${J}3`);
    expect(out.author).toEqual({ id: "gh-user1", login: "gh-user1", email: "user1@example.com" });
  });

  it("come back exactly", () => {
    const out = m.commentToTarget(comment);
    expect(m.commentToTinypm({ ...out, createdAt: "2030-01-01T00:00:00Z" })).toEqual(comment);
  });

  it("written on GitHub come back with the tinyPM author and a tinyPM timestamp", () => {
    const native = {
      author: { id: "gh-user3", login: "gh-user3" },
      createdAt: "2024-05-06T07:08:09Z",
      body: "hi @x",
    };
    expect(m.commentToTinypm(native)).toEqual({
      author: user(3),
      createdAt: "2024-05-06T07:08:09.000",
      body: "hi @x",
    });
  });

  it("by someone unknown keep the GitHub login as the author's name", () => {
    const native = {
      author: { id: "stranger", login: "stranger" },
      createdAt: "2024-05-06T07:08:09Z",
      body: "x",
    };
    expect(m.commentToTinypm(native).author).toEqual({ name: "stranger" });
  });
});

describe("GitHub time entries", () => {
  const entries = [
    { user: user(1), date: "2012-02-05", hours: 1.5, remainingHours: 2 },
    { user: user(2), date: "2012-02-06", hours: 2, comment: "pairing | review" },
  ];
  const item = sampleTask({ timeEntries: entries });

  it("travel in metadata with a readable summary at the end of the body", () => {
    const draft = m.toTarget(item);
    // Users by login and tinyPM id only: no email, no full name (issue 13).
    const byLogin = entries.map((e) => ({ ...e, user: { id: e.user.id, login: e.user.login } }));
    expect(draft.metadata?.timeEntries).toEqual(byLogin);
    expect(JSON.stringify(draft.metadata)).not.toMatch(/@example\.com|User \d/);
    expect(draft.description).toContain("**Time booked in tinyPM:** 3.5 h");
    expect(draft.description).toContain("| 2012-02-06 | user2 | 2 |  | pairing \\| review |");
    expect(m.timeEntriesToTarget(item)).toEqual([]);
  });

  it("come back, and the summary is not part of the description", () => {
    const back = readBack(m, m.toTarget(item), item);
    expect(m.timeEntriesToTinypm(back)).toEqual(entries);
    expect(m.toTinypm(back).description).toBe(item.description);
  });
});

describe("GitHub milestones", () => {
  const iteration = {
    id: "2",
    name: "Sprint 2",
    goal: "Ship it",
    startDate: "2012-02-01",
    durationDays: 14,
    plannedVelocity: 20,
    position: 1,
    state: "active" as const,
  };

  it("take the name, the goal as description, and start + duration as due date", () => {
    const out = m.iterationToTarget(iteration);
    expect(out).toMatchObject({ name: "Sprint 2", endDate: "2012-02-15", state: "active" });
    expect(out.goal?.startsWith("Ship it\n\n<!-- tinypm-sync:iteration ")).toBe(true);
  });

  it("come back exactly, ids aside", () => {
    const out = m.iterationToTarget(iteration);
    const { id: _id, ...rest } = iteration;
    expect(m.iterationToTinypm({ id: "m1", ...out })).toEqual(rest);
  });

  it("with a moved due date come back with a new duration", () => {
    const out = m.iterationToTarget(iteration);
    expect(m.iterationToTinypm({ id: "m1", ...out, endDate: "2012-02-22" })).toMatchObject({
      durationDays: 21,
      endDate: "2012-02-22",
    });
  });
});

describe("GitHub labels and users", () => {
  it("lists the labels to ensure, with the mapping's colours", () => {
    expect(m.labels()).toContainEqual({
      name: "priority: must have",
      color: "b60205",
      description: "tinyPM priority",
    });
    expect(m.labels().map((l) => l.name)).toContain("status: in progress");
  });

  it("skips an unmapped user but brings them back from metadata", () => {
    const item = sampleStory({
      assignees: [{ id: "99", login: "ghost", name: "Ghost User", email: "ghost@example.com" }],
    });
    const draft = m.toTarget(item);
    expect(draft.assignees).toEqual([]);
    expect(m.toTinypm(readBack(m, draft, item)).assignees).toEqual(item.assignees);
  });

  it("fails on an unmapped user under policy fail", () => {
    const strict = defaultMapping("github", "fail");
    expect(() => strict.toTarget(sampleStory({ assignees: [{ login: "ghost" }] }))).toThrow(
      MappingError,
    );
  });
});

describe("comment timestamps", () => {
  it("are written with a zone, as GitHub reports them", () => {
    const c = { author: user(1), createdAt: "2012-02-04T21:17:47.765", body: "x" };
    expect(m.commentToTarget(c).createdAt).toBe("2012-02-04T21:17:47.765Z");
    expect(m.commentToTarget({ ...c, createdAt: "2012-02-04T21:17:47Z" }).createdAt).toBe(
      "2012-02-04T21:17:47Z",
    );
  });
});
