import { AgileClient, type Version3Client } from "jira.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { authedFetch, failure, jiraClient, story } from "./jira-sandbox-helpers.js";

let sandbox: JiraSandbox;
let client: Version3Client;
let agile: AgileClient;

beforeAll(async () => {
  sandbox = await startJiraSandbox();
  client = jiraClient(sandbox);
  agile = new AgileClient({
    host: sandbox.url,
    authentication: { basic: { email: sandbox.email, apiToken: sandbox.token } },
  });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
});

async function newSprint(name = "Sprint 1"): Promise<number> {
  const sprint = await agile.sprint.createSprint({ name, originBoardId: 1 });
  return sprint.id;
}

describe("the Jira sandbox: boards", () => {
  it("lists the scrum board in the paging envelope", async () => {
    const boards = await agile.board.getAllBoards({ projectKeyOrId: "WID" });
    expect(boards).toMatchObject({ startAt: 0, total: 1, isLast: true });
    expect(boards.values[0]).toMatchObject({ id: 1, type: "scrum" });
  });

  it("names the story-points field in the board configuration", async () => {
    const config = await agile.board.getConfiguration({ boardId: 1 });
    expect(config.estimation).toEqual({
      type: "field",
      field: { fieldId: "customfield_10016", displayName: "Story Points" },
    });
  });
});

describe("the Jira sandbox: sprints", () => {
  it("creates sprints in the future state", async () => {
    const sprint = await agile.sprint.createSprint({
      name: "Sprint 1",
      originBoardId: 1,
      goal: "ship",
    });
    expect(sprint).toMatchObject({
      state: "future",
      name: "Sprint 1",
      originBoardId: 1,
      goal: "ship",
    });
  });

  it("needs start and end dates to start, sets completeDate on close, then refuses updates", async () => {
    const id = await newSprint();
    const noDates = await failure(
      agile.sprint.partiallyUpdateSprint({ sprintId: id, state: "active" }),
    );
    expect(noDates.status).toBe(400);
    const active = await agile.sprint.partiallyUpdateSprint({
      sprintId: id,
      state: "active",
      startDate: "2026-11-23T09:00:00.000+00:00",
      endDate: "2026-12-07T17:00:00.000+00:00",
    });
    expect(active.state).toBe("active");
    expect(active.startDate).toBe("2026-11-23T09:00:00.000+00:00");
    const back = await failure(
      agile.sprint.partiallyUpdateSprint({ sprintId: id, state: "future" }),
    );
    expect(back.status).toBe(400);
    const closed = await agile.sprint.partiallyUpdateSprint({ sprintId: id, state: "closed" });
    expect(closed.state).toBe("closed");
    expect(closed.completeDate).toMatch(/\+00:00$/);
    const rename = await failure(
      agile.sprint.partiallyUpdateSprint({ sprintId: id, name: "renamed" }),
    );
    expect(rename.status).toBe(400);
  });

  it("refuses to close a future sprint", async () => {
    const id = await newSprint();
    const r = await failure(agile.sprint.partiallyUpdateSprint({ sprintId: id, state: "closed" }));
    expect(r.status).toBe(400);
  });

  it("lists board sprints ordered closed, active, future", async () => {
    const a = await newSprint("A");
    const b = await newSprint("B");
    await newSprint("C");
    const dates = { startDate: "2026-11-01T00:00:00.000Z", endDate: "2026-11-14T00:00:00.000Z" };
    await agile.sprint.partiallyUpdateSprint({ sprintId: a, state: "active", ...dates });
    await agile.sprint.partiallyUpdateSprint({ sprintId: a, state: "closed" });
    await agile.sprint.partiallyUpdateSprint({ sprintId: b, state: "active", ...dates });
    const list = await agile.board.getAllSprints({ boardId: 1 });
    expect(list.values.map((s) => `${s.name}:${s.state}`)).toEqual([
      "A:closed",
      "B:active",
      "C:future",
    ]);
    const future = await agile.board.getAllSprints({ boardId: 1, state: "future" });
    expect(future.values.map((s) => s.name)).toEqual(["C"]);
  });

  it("moves issues into a sprint and shows the sprint on the issue", async () => {
    const id = await newSprint();
    const created = await client.issues.createIssues({ issueUpdates: [story("a"), story("b")] });
    const keys = (created.issues ?? []).map((i) => i.key);
    await agile.sprint.moveIssuesToSprintAndRank({ sprintId: id, issues: keys });
    const got = await client.issues.getIssue({
      issueIdOrKey: keys[0]!,
      fields: ["customfield_10020"],
    });
    expect(got.fields.customfield_10020).toEqual([
      expect.objectContaining({ id, name: "Sprint 1", state: "future", boardId: 1 }),
    ]);
    const inSprint = await agile.sprint.getIssuesForSprint({ sprintId: id });
    expect(inSprint.issues.map((i) => i.key).sort()).toEqual([...keys].sort());
    const found = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
      jql: `sprint = ${id}`,
      fields: ["key"],
    });
    expect(found.issues).toHaveLength(2);
  });

  it("sets the Sprint field on create by sprint id, and refuses a closed sprint there", async () => {
    const id = await newSprint();
    const created = await client.issues.createIssues({
      issueUpdates: [story("a", { customfield_10020: id })],
    });
    const key = created.issues?.[0]?.key ?? "";
    const got = await client.issues.getIssue({ issueIdOrKey: key, fields: ["customfield_10020"] });
    expect(got.fields.customfield_10020).toEqual([
      expect.objectContaining({ id, state: "future" }),
    ]);
    await agile.sprint.partiallyUpdateSprint({
      sprintId: id,
      state: "active",
      startDate: "2026-11-01T00:00:00.000Z",
      endDate: "2026-11-14T00:00:00.000Z",
    });
    await agile.sprint.partiallyUpdateSprint({ sprintId: id, state: "closed" });
    const refused = await failure(
      client.issues.createIssues({ issueUpdates: [story("b", { customfield_10020: id })] }),
    );
    expect(refused.status).toBe(400); // every element failed
    const body = refused.data as { errors: { elementErrors: { errors: object } }[] };
    expect(body.errors[0]?.elementErrors.errors).toHaveProperty("customfield_10020");
  });

  it("refuses to move more than 50 issues in one call", async () => {
    const id = await newSprint();
    const created = await client.issues.createIssues({
      issueUpdates: Array.from({ length: 50 }, (_, i) => story(`s${i}`)),
    });
    const keys = [...(created.issues ?? []).map((i) => i.key), "WID-1"];
    const res = await authedFetch(sandbox, `/rest/agile/1.0/sprint/${id}/issue`, {
      method: "POST",
      body: JSON.stringify({ issues: keys }),
    });
    expect(res.status).toBe(400);
  });

  it("refuses to move issues into a closed sprint", async () => {
    const id = await newSprint();
    await agile.sprint.partiallyUpdateSprint({
      sprintId: id,
      state: "active",
      startDate: "2026-11-01T00:00:00.000Z",
      endDate: "2026-11-14T00:00:00.000Z",
    });
    await agile.sprint.partiallyUpdateSprint({ sprintId: id, state: "closed" });
    const { key } = await client.issues.createIssue(story("late"));
    const r = await failure(
      agile.sprint.moveIssuesToSprintAndRank({ sprintId: id, issues: [key] }),
    );
    expect(r.status).toBe(400);
  });
});
