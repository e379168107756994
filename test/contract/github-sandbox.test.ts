import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./github-sandbox-helpers.js";

let h: Harness;
// GitHub stamps the real second, so writes in one second share `updated_at`; the tests that
// compare timestamps move this clock on between writes instead of relying on the real one.
let clock = Math.floor(Date.now() / 1000) * 1000;
const tick = (): void => {
  clock += 1000;
};
beforeAll(async () => {
  h = await startHarness({ now: () => clock });
});
afterAll(async () => {
  await h.sandbox.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe("authentication", () => {
  it("answers a wrong token with 401 Bad credentials", async () => {
    const res = await h.call("GET", "/user", { token: "ghp_wrong" });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      message: "Bad credentials",
      documentation_url: "https://docs.github.com/rest",
      status: "401",
    });
  });

  it("answers a missing token with 401 Requires authentication", async () => {
    const res = await h.call("GET", "/user", { token: null });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe("Requires authentication");
  });

  it("accepts token and Bearer schemes and returns the token's user", async () => {
    const res = await h.call("GET", "/user", {
      headers: { authorization: `Bearer ${h.sandbox.token}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { login: string }).login).toBe("alice");
  });

  it("lets the read-only token read but not write", async () => {
    const read = await h.call("GET", "/repos/acme/widgets/issues", { token: h.sandbox.readToken });
    expect(read.status).toBe(200);
    const write = await h.call("POST", "/repos/acme/widgets/issues", {
      token: h.sandbox.readToken,
      body: { title: "nope" },
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { message: string }).message).toBe(
      "Resource not accessible by personal access token",
    );
  });

  it("answers 404 for another repository", async () => {
    expect((await h.call("GET", "/repos/acme/other/issues")).status).toBe(404);
  });
});

describe("issues", () => {
  it("creates an issue with labels, milestone and assignees (201 + location)", async () => {
    const { data: m } = await h.octokit.issues.createMilestone({ ...h.repo, title: "v1" });
    const res = await h.octokit.issues.create({
      ...h.repo,
      title: "First",
      body: "text",
      labels: ["bug", "Brand New"],
      assignees: ["bob", "carol"],
      milestone: m.number,
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${h.sandbox.url}/repos/acme/widgets/issues/1`);
    const issue = res.data;
    expect(issue.number).toBe(1);
    expect(issue.id).not.toBe(1);
    expect(issue.labels.map((l) => (typeof l === "string" ? l : l.name))).toEqual([
      "bug",
      "Brand New",
    ]);
    expect(issue.assignees?.map((a) => a.login)).toEqual(["bob", "carol"]);
    expect(issue.assignee?.login).toBe("bob");
    expect(issue.milestone?.number).toBe(m.number);
    expect(issue.created_at).toMatch(TS);
    expect(issue.sub_issues_summary).toEqual({ total: 0, completed: 0, percent_completed: 0 });
    expect(issue.parent_issue_url).toBeNull();
    const { data: label } = await h.octokit.issues.getLabel({ ...h.repo, name: "Brand New" });
    expect(label.color).toBe("ededed");
  });

  it("refuses a missing title, an unknown milestone, an unknown assignee and a long body with 422", async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /"title" wasn't supplied/],
      [{ title: "x", milestone: 99 }, /Validation Failed/],
      [{ title: "x", assignees: ["mallory"] }, /Validation Failed/],
      [{ title: "x", body: "a".repeat(65_537) }, /Validation Failed/],
    ];
    for (const [body, message] of cases) {
      const res = await h.call("POST", "/repos/acme/widgets/issues", { body });
      expect(res.status).toBe(422);
      const err = (await res.json()) as {
        message: string;
        documentation_url: string;
        status: string;
      };
      expect(err.message).toMatch(message);
      expect(err.status).toBe("422");
      expect(err.documentation_url).toMatch(/^https:\/\/docs\.github\.com\//);
    }
    const long = await h.call("POST", "/repos/acme/widgets/issues", {
      body: { title: "x", body: "a".repeat(65_537) },
    });
    expect(((await long.json()) as { errors: unknown[] }).errors).toEqual([
      {
        resource: "Issue",
        code: "custom",
        field: "body",
        message: "body is too long (maximum is 65536 characters)",
      },
    ]);
  });

  it("refuses more than 10 assignees", async () => {
    const users = Array.from({ length: 11 }, (_, i) => `user${i}`);
    const h2 = await startHarness({ users });
    try {
      const res = await h2.call("POST", "/repos/acme/widgets/issues", {
        body: { title: "x", assignees: users },
      });
      expect(res.status).toBe(422);
    } finally {
      await h2.sandbox.close();
    }
  });

  it("updates with replace semantics and state_reason rules, bumping updated_at", async () => {
    const { data: created } = await h.octokit.issues.create({
      ...h.repo,
      title: "T",
      labels: ["a", "b"],
    });
    tick();
    const { data: closed } = await h.octokit.issues.update({
      ...h.repo,
      issue_number: created.number,
      labels: ["c"],
      assignees: ["dave"],
      state: "closed",
      state_reason: "not_planned",
    });
    expect(closed.labels.map((l) => (typeof l === "string" ? l : l.name))).toEqual(["c"]);
    expect(closed.state).toBe("closed");
    expect(closed.state_reason).toBe("not_planned");
    expect(closed.closed_at).toMatch(TS);
    expect(closed.closed_by?.login).toBe("alice");
    expect(Date.parse(closed.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    const { data: reopened } = await h.octokit.issues.update({
      ...h.repo,
      issue_number: 1,
      state: "open",
    });
    expect(reopened.state_reason).toBe("reopened");
    expect(reopened.closed_at).toBeNull();
    expect(reopened.closed_by).toBeNull();
    const bad = await h.call("PATCH", "/repos/acme/widgets/issues/1", {
      body: { state: "closed", state_reason: "reopened", title: "changed?" },
    });
    expect(bad.status).toBe(422);
    const { data: after } = await h.octokit.issues.get({ ...h.repo, issue_number: 1 });
    expect(after.title).toBe("T");
  });

  it("omits the singular assignee with API version 2026-03-10 and refuses it in requests", async () => {
    await h.octokit.issues.create({ ...h.repo, title: "v", assignees: ["bob"] });
    const headers = { "x-github-api-version": "2026-03-10" };
    const res = await h.call("GET", "/repos/acme/widgets/issues/1", { headers });
    const body = (await res.json()) as Record<string, unknown>;
    expect("assignee" in body).toBe(false);
    expect(res.headers.get("x-github-api-version-selected")).toBe("2026-03-10");
    const refused = await h.call("POST", "/repos/acme/widgets/issues", {
      headers,
      body: { title: "x", assignee: "bob" },
    });
    expect(refused.status).toBe(422);
    // GitHub answers any version it does not serve with 400 (not 410), dates included.
    expect(
      (await h.call("GET", "/user", { headers: { "x-github-api-version": "2020-01-01" } })).status,
    ).toBe(400);
    expect(
      (await h.call("GET", "/user", { headers: { "x-github-api-version": "banana" } })).status,
    ).toBe(400);
  });

  it("answers 404 for a missing issue and 400 for malformed JSON", async () => {
    expect((await h.call("GET", "/repos/acme/widgets/issues/42")).status).toBe(404);
    const res = await fetch(`${h.sandbox.url}/repos/acme/widgets/issues`, {
      method: "POST",
      headers: {
        authorization: `token ${h.sandbox.token}`,
        "user-agent": "t",
        "content-type": "application/json",
      },
      body: "{oops",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe("Problems parsing JSON");
  });
});

describe("listing", () => {
  async function seed(n: number): Promise<void> {
    for (let i = 1; i <= n; i++) await h.octokit.issues.create({ ...h.repo, title: `Issue ${i}` });
  }

  it("pages with absolute link headers and follows them with octokit.paginate", async () => {
    await seed(7);
    const first = await h.call("GET", "/repos/acme/widgets/issues?per_page=3");
    const link = first.headers.get("link") ?? "";
    expect(link).toBe(
      `<${h.sandbox.url}/repositories/1000/issues?per_page=3&page=2>; rel="next", ` +
        `<${h.sandbox.url}/repositories/1000/issues?per_page=3&page=3>; rel="last"`,
    );
    const all = await h.octokit.paginate(h.octokit.issues.listForRepo, { ...h.repo, per_page: 3 });
    expect(all.map((i) => i.number)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const single = await h.call("GET", "/repos/acme/widgets/issues?per_page=100");
    expect(single.headers.get("link")).toBeNull();
    const capped = await h.call("GET", "/repos/acme/widgets/issues?per_page=500");
    expect(((await capped.json()) as unknown[]).length).toBe(7);
  });

  it("filters by state, labels, milestone, assignee and since; sorts by updated", async () => {
    const { data: m } = await h.octokit.issues.createMilestone({ ...h.repo, title: "M" });
    await h.octokit.issues.create({
      ...h.repo,
      title: "a",
      labels: ["x", "y"],
      milestone: m.number,
    });
    tick();
    await h.octokit.issues.create({ ...h.repo, title: "b", labels: ["x"], assignees: ["bob"] });
    tick();
    await h.octokit.issues.create({ ...h.repo, title: "c" });
    tick();
    await h.octokit.issues.update({ ...h.repo, issue_number: 3, state: "closed" });
    const titles = async (q: string): Promise<string[]> => {
      const res = await h.call("GET", `/repos/acme/widgets/issues?${q}`);
      return ((await res.json()) as { title: string }[]).map((i) => i.title);
    };
    expect(await titles("")).toEqual(["b", "a"]);
    expect(await titles("state=all&direction=asc")).toEqual(["a", "b", "c"]);
    expect(await titles("state=closed")).toEqual(["c"]);
    expect(await titles("labels=x,Y")).toEqual(["a"]);
    expect(await titles("milestone=*")).toEqual(["a"]);
    expect(await titles("milestone=none&state=all")).toEqual(["c", "b"]);
    expect(await titles(`milestone=${m.number}`)).toEqual(["a"]);
    expect(await titles("assignee=bob")).toEqual(["b"]);
    expect(await titles("assignee=none")).toEqual(["a"]);
    expect(await titles("state=all&sort=updated&direction=desc")).toEqual(["c", "b", "a"]);
    const { data: c } = await h.octokit.issues.get({ ...h.repo, issue_number: 3 });
    expect(await titles(`state=all&since=${c.updated_at}`)).toEqual(["c"]);
    expect((await h.call("GET", "/repos/acme/widgets/issues?since=yesterday")).status).toBe(422);
  });

  it("answers If-None-Match with a 304 that costs no quota, and changes the ETag on change", async () => {
    await seed(2);
    const first = await h.call("GET", "/repos/acme/widgets/issues");
    const etag = first.headers.get("etag") ?? "";
    const used = Number(first.headers.get("x-ratelimit-used"));
    expect(etag).toMatch(/^W\/"[0-9a-f]+"$/);
    const again = await h.call("GET", "/repos/acme/widgets/issues", {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(Number(again.headers.get("x-ratelimit-used"))).toBe(used);
    const rate = await h.call("GET", "/rate_limit");
    expect(Number(rate.headers.get("x-ratelimit-used"))).toBe(used);
    await h.octokit.issues.createComment({ ...h.repo, issue_number: 1, body: "hi" });
    const changed = await h.call("GET", "/repos/acme/widgets/issues", {
      headers: { "if-none-match": etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(h.sandbox.stats().notModified).toBe(1);
  });

  it("answers If-Modified-Since on a single issue from its last-modified", async () => {
    await seed(1);
    const first = await h.call("GET", "/repos/acme/widgets/issues/1");
    const lastModified = first.headers.get("last-modified") ?? "";
    expect(lastModified).toMatch(/GMT$/);
    const again = await h.call("GET", "/repos/acme/widgets/issues/1", {
      headers: { "if-modified-since": lastModified },
    });
    expect(again.status).toBe(304);
    const older = await h.call("GET", "/repos/acme/widgets/issues/1", {
      headers: { "if-modified-since": "Mon, 01 Jan 2001 00:00:00 GMT" },
    });
    expect(older.status).toBe(200);
  });

  it("sends x-ratelimit headers on every response", async () => {
    const res = await h.call("GET", "/repos/acme/widgets");
    for (const name of ["limit", "remaining", "used", "reset", "resource"]) {
      expect(res.headers.get(`x-ratelimit-${name}`)).not.toBeNull();
    }
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });
});

describe("comments, labels, milestones, assignees", () => {
  it("creates, lists and edits comments and bumps the issue", async () => {
    const { data: issue } = await h.octokit.issues.create({ ...h.repo, title: "c" });
    tick();
    const { data: comment } = await h.octokit.issues.createComment({
      ...h.repo,
      issue_number: 1,
      body: "one",
    });
    await h.octokit.issues.createComment({ ...h.repo, issue_number: 1, body: "two" });
    const { data: after } = await h.octokit.issues.get({ ...h.repo, issue_number: 1 });
    expect(after.comments).toBe(2);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(issue.updated_at));
    const { data: edited } = await h.octokit.issues.updateComment({
      ...h.repo,
      comment_id: comment.id,
      body: "uno",
    });
    expect(edited.body).toBe("uno");
    const { data: list } = await h.octokit.issues.listComments({ ...h.repo, issue_number: 1 });
    expect(list.map((c) => c.body)).toEqual(["uno", "two"]);
    const { data: repoList } = await h.octokit.issues.listCommentsForRepo({
      ...h.repo,
      since: edited.updated_at,
    });
    expect(repoList.map((c) => c.body)).toContain("uno");
    expect(
      (await h.call("POST", "/repos/acme/widgets/issues/1/comments", { body: {} })).status,
    ).toBe(422);
  });

  it("adds, replaces and removes issue labels, creating missing ones", async () => {
    await h.octokit.issues.create({ ...h.repo, title: "l" });
    const { data: added } = await h.octokit.issues.addLabels({
      ...h.repo,
      issue_number: 1,
      labels: ["Foo", "bug"],
    });
    expect(added.map((l) => l.name)).toEqual(["Foo", "bug"]);
    const { data: set } = await h.octokit.issues.setLabels({
      ...h.repo,
      issue_number: 1,
      labels: ["bAr"],
    });
    expect(set.map((l) => l.name)).toEqual(["bAr"]);
    const { data: removed } = await h.octokit.issues.removeLabel({
      ...h.repo,
      issue_number: 1,
      name: "bAr",
    });
    expect(removed).toEqual([]);
    const missing = await h.call("DELETE", "/repos/acme/widgets/issues/1/labels/bAr");
    expect(missing.status).toBe(404);
    const dup = await h.call("POST", "/repos/acme/widgets/labels", {
      body: { name: "FOO", color: "ffffff" },
    });
    expect(dup.status).toBe(422);
    expect(((await dup.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe(
      "already_exists",
    );
  });

  it("manages milestones with due_on, description and state", async () => {
    const { data: m } = await h.octokit.issues.createMilestone({
      ...h.repo,
      title: "Sprint 1",
      description: "first",
      due_on: "2026-12-01T00:00:00Z",
    });
    // GitHub keeps the Pacific day: midnight UTC on 1 December is still 30 November in California.
    expect(m.due_on).toBe("2026-11-30T08:00:00Z");
    const { data: closed } = await h.octokit.issues.updateMilestone({
      ...h.repo,
      milestone_number: m.number,
      state: "closed",
    });
    expect(closed.state).toBe("closed");
    expect(closed.closed_at).toMatch(TS);
    const { data: open } = await h.octokit.issues.listMilestones({ ...h.repo });
    expect(open).toEqual([]);
    const { data: all } = await h.octokit.issues.listMilestones({ ...h.repo, state: "all" });
    expect(all.map((x) => x.title)).toEqual(["Sprint 1"]);
    expect(
      (await h.call("POST", "/repos/acme/widgets/milestones", { body: { title: "Sprint 1" } }))
        .status,
    ).toBe(422);
  });

  it("lists assignees, adds up to 10 keeping existing ones and drops unknown users", async () => {
    const { data: users } = await h.octokit.issues.listAssignees({ ...h.repo });
    expect(users.map((u) => u.login)).toEqual(["alice", "bob", "carol", "dave", "erin", "frank"]);
    await h.octokit.issues.create({ ...h.repo, title: "a", assignees: ["bob"] });
    const { data: added } = await h.octokit.issues.addAssignees({
      ...h.repo,
      issue_number: 1,
      assignees: ["carol", "mallory"],
    });
    expect(added.assignees?.map((a) => a.login)).toEqual(["bob", "carol"]);
    const { data: removed } = await h.octokit.issues.removeAssignees({
      ...h.repo,
      issue_number: 1,
      assignees: ["bob"],
    });
    expect(removed.assignees?.map((a) => a.login)).toEqual(["carol"]);
    expect((await h.call("GET", "/repos/acme/widgets/assignees/bob")).status).toBe(204);
    expect((await h.call("GET", "/repos/acme/widgets/assignees/mallory")).status).toBe(404);
  });
});

describe("stats and reset", () => {
  it("counts requests by route, method and status, and resets", async () => {
    await h.octokit.issues.create({ ...h.repo, title: "s" });
    await h.octokit.issues.listForRepo({ ...h.repo });
    const res = await fetch(`${h.sandbox.url}/_sandbox/stats`);
    const stats = (await res.json()) as ReturnType<typeof h.sandbox.stats>;
    expect(stats).toEqual(h.sandbox.stats());
    expect(stats.byRoute["POST /repos/:owner/:repo/issues"]).toBe(1);
    expect(stats.byRoute["GET /repos/:owner/:repo/issues"]).toBe(1);
    expect(stats.byMethod).toEqual({ POST: 1, GET: 1 });
    expect(stats.writes).toBe(1);
    expect(stats.byStatus).toEqual({ "200": 1, "201": 1 });
    expect((await fetch(`${h.sandbox.url}/_sandbox/reset`, { method: "POST" })).status).toBe(200);
    expect(h.sandbox.stats().requests).toBe(0);
    const { data } = await h.octokit.issues.listForRepo({ ...h.repo, state: "all" });
    expect(data).toEqual([]);
  });
});
