/**
 * The sandboxes' people follow the real services' rules: Jira hides emails per profile (and user
 * search cannot find a hidden one), lists only assignable users for a project and refuses any
 * other assignee with 400; GitHub shows `email: null` unless public and assigns collaborators only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startHarness, type Harness } from "./github-sandbox-helpers.js";
import { doc, failure, jiraClient } from "./jira-sandbox-helpers.js";

describe("Jira sandbox users", () => {
  let sandbox: JiraSandbox;
  beforeAll(async () => {
    sandbox = await startJiraSandbox({
      users: [
        { login: "alice", emailVisible: true },
        { login: "bob", emailVisible: false },
        { login: "carl", displayName: "Carl Guest", emailVisible: true, assignable: false },
        { login: "dora", emailVisible: true, active: false },
      ],
    });
  });
  afterAll(() => sandbox.close());

  it("shows an email only when the profile does, and finds no one by a hidden email", async () => {
    const client = jiraClient(sandbox);
    const all = await client.users.getAllUsers({ maxResults: 50 });
    const byId = new Map(all.map((u) => [u.accountId, u]));
    expect(byId.get("acc-alice")?.emailAddress).toBe("alice@example.com");
    expect(byId.get("acc-bob")).not.toHaveProperty("emailAddress");
    expect(await client.userSearch.findUsers({ query: "bob@example.com" })).toEqual([]);
    const alice = await client.userSearch.findUsers({ query: "alice@example.com" });
    expect(alice.map((u) => u.accountId)).toEqual(["acc-alice"]);
  });

  it("lists only assignable, active users for the project", async () => {
    const client = jiraClient(sandbox);
    const found = await client.userSearch.findAssignableUsers({ project: "WID" });
    expect(found.map((u) => u.accountId)).toEqual(["acc-sandbox", "acc-alice", "acc-bob"]);
  });

  it("refuses a non-assignable or inactive assignee with 400, on create and on edit", async () => {
    const client = jiraClient(sandbox);
    const fields = (accountId: string) => ({
      project: { key: "WID" },
      issuetype: { name: "Story" },
      summary: "assign me",
      description: doc("x"),
      assignee: { accountId },
    });
    for (const id of ["acc-carl", "acc-dora"]) {
      const r = await failure(client.issues.createIssue({ fields: fields(id) }));
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.data)).toContain("cannot be assigned issues");
    }
    const ok = await client.issues.createIssue({ fields: fields("acc-bob") });
    const edit = await failure(
      client.issues.editIssue({
        issueIdOrKey: ok.key,
        fields: { assignee: { accountId: "acc-carl" } },
      }),
    );
    expect(edit.status).toBe(400);
    const issue = await client.issues.getIssue({ issueIdOrKey: ok.key, fields: ["assignee"] });
    expect(issue.fields.assignee.accountId).toBe("acc-bob");
  });
});

describe("GitHub sandbox users", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      users: [
        "alice",
        { login: "bob", name: "Bob Stone", publicEmail: "bob@example.com" },
        { login: "outsider", name: "Out Sider", collaborator: false },
      ],
    });
  });
  afterAll(() => h.sandbox.close());

  it("answers email null unless the profile made one public", async () => {
    const alice = await h.octokit.rest.users.getByUsername({ username: "alice" });
    const bob = await h.octokit.rest.users.getByUsername({ username: "bob" });
    expect(alice.data.email).toBeNull();
    expect(alice.data.name).toBeNull();
    expect(bob.data).toMatchObject({ name: "Bob Stone", email: "bob@example.com" });
  });

  it("lists collaborators only as assignees, and 404s the others' assignability check", async () => {
    const list = await h.octokit.rest.issues.listAssignees(h.repo);
    expect(list.data.map((u) => u.login)).toEqual(["alice", "bob"]);
    const r = await h.call("GET", `/repos/${h.repo.owner}/${h.repo.repo}/assignees/outsider`);
    expect(r.status).toBe(404);
  });

  it("refuses a non-collaborator assignee on create (422 invalid), ignores it when adding", async () => {
    const path = `/repos/${h.repo.owner}/${h.repo.repo}/issues`;
    const refused = await h.call("POST", path, {
      body: { title: "t", assignees: ["alice", "outsider"] },
    });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      errors: [{ resource: "Issue", field: "assignees", code: "invalid", value: "outsider" }],
    });
    const created = await h.octokit.rest.issues.create({
      ...h.repo,
      title: "t",
      assignees: ["bob"],
    });
    const added = await h.octokit.rest.issues.addAssignees({
      ...h.repo,
      issue_number: created.data.number,
      assignees: ["outsider", "alice"],
    });
    expect(added.data.assignees?.map((u) => u.login)).toEqual(["bob", "alice"]);
  });
});
