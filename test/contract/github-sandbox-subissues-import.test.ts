import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./github-sandbox-helpers.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ timeScale: 10 });
});
afterAll(async () => {
  await h.sandbox.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

interface IssueJson {
  id: number;
  number: number;
  parent_issue_url: string | null;
  sub_issues_summary: { total: number; completed: number; percent_completed: number };
}

async function issue(title: string): Promise<IssueJson> {
  const res = await h.call("POST", "/repos/acme/widgets/issues", { body: { title } });
  return (await res.json()) as IssueJson;
}

const addSub = (parent: number, body: unknown): Promise<Response> =>
  h.call("POST", `/repos/acme/widgets/issues/${parent}/sub_issues`, { body });

describe("sub-issues", () => {
  it("adds a child by id (not number), lists it and shows summary and parent url", async () => {
    const parent = await issue("parent");
    const child = await issue("child");
    const res = await addSub(parent.number, { sub_issue_id: child.id });
    expect(res.status).toBe(201);
    const body = (await res.json()) as IssueJson;
    expect(body.number).toBe(parent.number);
    expect(body.sub_issues_summary).toEqual({ total: 1, completed: 0, percent_completed: 0 });
    const { data: list } = await h.octokit.request(
      "GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues",
      {
        ...h.repo,
        issue_number: parent.number,
      },
    );
    expect(list.map((i) => i.number)).toEqual([child.number]);
    const { data: got } = await h.octokit.issues.get({ ...h.repo, issue_number: child.number });
    expect(got.parent_issue_url).toBe(
      `${h.sandbox.url}/repos/acme/widgets/issues/${parent.number}`,
    );
    const parentRes = await h.call("GET", `/repos/acme/widgets/issues/${child.number}/parent`);
    expect(((await parentRes.json()) as IssueJson).number).toBe(parent.number);
    await h.octokit.issues.update({ ...h.repo, issue_number: child.number, state: "closed" });
    const { data: after } = await h.octokit.issues.get({ ...h.repo, issue_number: parent.number });
    expect(after.sub_issues_summary).toEqual({ total: 1, completed: 1, percent_completed: 100 });
  });

  it("answers 404 when given a number that is no issue id", async () => {
    const parent = await issue("p");
    await issue("c");
    expect((await addSub(parent.number, { sub_issue_id: 2 })).status).toBe(404);
  });

  it("refuses duplicates, a second parent without replace_parent, and cycles with 422", async () => {
    const a = await issue("a");
    const b = await issue("b");
    const c = await issue("c");
    expect((await addSub(a.number, { sub_issue_id: b.id })).status).toBe(201);
    expect((await addSub(a.number, { sub_issue_id: b.id })).status).toBe(422);
    expect((await addSub(c.number, { sub_issue_id: b.id })).status).toBe(422);
    expect((await addSub(b.number, { sub_issue_id: a.id })).status).toBe(422);
    expect((await addSub(a.number, { sub_issue_id: a.id })).status).toBe(422);
    const moved = await addSub(c.number, { sub_issue_id: b.id, replace_parent: true });
    expect(moved.status).toBe(201);
    const { data: oldParent } = await h.octokit.issues.get({ ...h.repo, issue_number: a.number });
    expect(oldParent.sub_issues_summary?.total).toBe(0);
  });

  it("caps a parent at 100 sub-issues", async () => {
    const parent = await issue("parent");
    for (let i = 0; i < 100; i++) {
      const child = await issue(`c${i}`);
      expect((await addSub(parent.number, { sub_issue_id: child.id })).status).toBe(201);
    }
    const extra = await issue("one too many");
    const res = await addSub(parent.number, { sub_issue_id: extra.id });
    expect(res.status).toBe(422);
    const err = (await res.json()) as { message: string; errors: { message: string }[] };
    expect(err.message).toBe("Validation Failed");
    expect(err.errors[0]?.message).toMatch(/more than 100 sub-issues/);
  });

  it("caps nesting at 8 levels", async () => {
    const chain: IssueJson[] = [];
    for (let i = 0; i < 9; i++) chain.push(await issue(`level ${i + 1}`));
    for (let i = 1; i < 8; i++) {
      expect((await addSub(chain[i - 1]!.number, { sub_issue_id: chain[i]!.id })).status).toBe(201);
    }
    expect((await addSub(chain[7]!.number, { sub_issue_id: chain[8]!.id })).status).toBe(422);
  });

  it("removes and reprioritises sub-issues", async () => {
    const p = await issue("p");
    const kids = [await issue("1"), await issue("2"), await issue("3")];
    for (const k of kids) await addSub(p.number, { sub_issue_id: k.id });
    const moved = await h.call(
      "PATCH",
      `/repos/acme/widgets/issues/${p.number}/sub_issues/priority`,
      {
        body: { sub_issue_id: kids[2]!.id, before_id: kids[0]!.id },
      },
    );
    expect(moved.status).toBe(200);
    const order = async (): Promise<number[]> => {
      const res = await h.call("GET", `/repos/acme/widgets/issues/${p.number}/sub_issues`);
      return ((await res.json()) as IssueJson[]).map((i) => i.id);
    };
    expect(await order()).toEqual([kids[2]!.id, kids[0]!.id, kids[1]!.id]);
    const removed = await h.call("DELETE", `/repos/acme/widgets/issues/${p.number}/sub_issue`, {
      body: { sub_issue_id: kids[0]!.id },
    });
    expect(removed.status).toBe(200);
    expect(await order()).toEqual([kids[2]!.id, kids[1]!.id]);
    expect(
      (await h.call("GET", `/repos/acme/widgets/issues/${kids[0]!.number}/parent`)).status,
    ).toBe(404);
  });
});

const PREVIEW = { accept: "application/vnd.github.golden-comet-preview+json" };

interface ImportStatus {
  id: number;
  status: "pending" | "imported" | "failed";
  url: string;
  issue_url?: string;
  errors?: { location: string; resource: string; field: string; value: unknown; code: string }[];
}

async function submitImport(payload: unknown, headers = PREVIEW): Promise<Response> {
  return h.call("POST", "/repos/acme/widgets/import/issues", { body: payload, headers });
}

async function poll(id: number): Promise<ImportStatus> {
  for (;;) {
    const res = await h.call("GET", `/repos/acme/widgets/import/issues/${id}`, {
      headers: PREVIEW,
    });
    const status = (await res.json()) as ImportStatus;
    if (status.status !== "pending") return status;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("issue import API", () => {
  it("imports an issue with comments and original timestamps (202 pending → imported)", async () => {
    // A list read before the import must not be served stale afterwards.
    expect((await h.octokit.issues.listForRepo({ ...h.repo, state: "all" })).data).toEqual([]);
    const res = await submitImport({
      issue: {
        title: "Imported",
        body: "from tinyPM",
        created_at: "2020-01-02T03:04:05Z",
        closed: true,
        closed_at: "2020-02-01T00:00:00Z",
        labels: ["story", "bug"],
        assignee: "bob",
      },
      comments: [{ body: "first", created_at: "2020-01-03T00:00:00Z" }, { body: "second" }],
    });
    expect(res.status).toBe(202);
    const pending = (await res.json()) as ImportStatus;
    expect(pending.status).toBe("pending");
    expect(pending.url).toBe(`${h.sandbox.url}/repos/acme/widgets/import/issues/${pending.id}`);
    const done = await poll(pending.id);
    expect(done.status).toBe("imported");
    expect(done.issue_url).toBe(`${h.sandbox.url}/repos/acme/widgets/issues/1`);
    const { data: listed } = await h.octokit.issues.listForRepo({ ...h.repo, state: "all" });
    expect(listed.map((i) => i.title)).toEqual(["Imported"]);
    const { data: issue } = await h.octokit.issues.get({ ...h.repo, issue_number: 1 });
    expect(issue).toMatchObject({
      title: "Imported",
      state: "closed",
      created_at: "2020-01-02T03:04:05Z",
      closed_at: "2020-02-01T00:00:00Z",
      comments: 2,
    });
    expect(issue.assignee?.login).toBe("bob");
    const { data: comments } = await h.octokit.issues.listComments({ ...h.repo, issue_number: 1 });
    expect(comments.map((c) => [c.body, c.created_at.slice(0, 10)])).toEqual([
      ["first", "2020-01-03"],
      ["second", expect.stringMatching(/^\d{4}-/) as unknown],
    ]);
  });

  it("fails an import naming invalid assignee and milestone", async () => {
    const res = await submitImport({
      issue: { title: "x", body: "y", assignee: "mallory", milestone: 9 },
    });
    const done = await poll(((await res.json()) as ImportStatus).id);
    expect(done.status).toBe("failed");
    expect(done.errors).toEqual([
      {
        location: "/issue/assignee",
        resource: "Issue",
        field: "assignee",
        value: "mallory",
        code: "invalid",
      },
      {
        location: "/issue/milestone",
        resource: "Issue",
        field: "milestone",
        value: 9,
        code: "invalid",
      },
    ]);
    const { data: issues } = await h.octokit.issues.listForRepo({ ...h.repo, state: "all" });
    expect(issues).toEqual([]);
  });

  it("requires the preview media type, admin rights, a title and at most 1 MB", async () => {
    expect(
      (await submitImport({ issue: { title: "x", body: "y" } }, { accept: "application/json" }))
        .status,
    ).toBe(415);
    const reader = await h.call("POST", "/repos/acme/widgets/import/issues", {
      token: h.sandbox.readToken,
      body: { issue: { title: "x", body: "y" } },
      headers: PREVIEW,
    });
    expect(reader.status).toBe(403);
    expect((await submitImport({ issue: { body: "y" } })).status).toBe(422);
    expect(
      (await submitImport({ issue: { title: "x", body: "y".repeat(1_100_000) } })).status,
    ).toBe(413);
  });

  it("numbers imports in submission order and lists them", async () => {
    const ids: number[] = [];
    for (const title of ["one", "two", "three"]) {
      ids.push(
        ((await (await submitImport({ issue: { title, body: "" } })).json()) as ImportStatus).id,
      );
    }
    const done = await Promise.all(ids.map(poll));
    expect(done.map((d) => d.issue_url?.split("/").pop())).toEqual(["1", "2", "3"]);
    const list = await h.call("GET", "/repos/acme/widgets/import/issues?since=2000-01-01", {
      headers: PREVIEW,
    });
    expect(((await list.json()) as unknown[]).length).toBe(3);
    expect(h.sandbox.stats().rateLimited).toBe(0);
  });
});
