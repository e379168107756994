import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./github-sandbox-helpers.js";

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.sandbox.close();
});

async function seeded(rateLimits = "off"): Promise<Harness> {
  const h = await startHarness({ rateLimits });
  open.push(h);
  const repo = h.repo;
  await h.octokit.issues.create({
    ...repo,
    title: "Login fails",
    body: "marker tinypm:story:1",
    labels: ["bug"],
  });
  await h.octokit.issues.create({
    ...repo,
    title: "Add export",
    body: "marker tinypm:story:2",
    assignees: ["bob"],
  });
  await h.octokit.issues.create({ ...repo, title: "Old login page", body: "none" });
  await h.octokit.issues.update({ ...repo, issue_number: 3, state: "closed" });
  return h;
}

async function numbers(h: Harness, q: string): Promise<number[]> {
  const res = await h.call("GET", `/search/issues?q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    total_count: number;
    items: { number: number; score: number }[];
  };
  expect(body.total_count).toBe(body.items.length);
  return body.items.map((i) => i.number);
}

describe("search issues", () => {
  it("matches words and qualifiers within the repository", async () => {
    const h = await seeded();
    expect(await numbers(h, "login repo:acme/widgets")).toEqual([3, 1]);
    expect(await numbers(h, "login is:open")).toEqual([1]);
    expect(await numbers(h, "label:bug")).toEqual([1]);
    expect(await numbers(h, "assignee:bob is:issue")).toEqual([2]);
    expect(await numbers(h, '"tinypm:story:2" in:body')).toEqual([2]);
    expect(await numbers(h, "login in:body")).toEqual([]);
    expect(await numbers(h, "is:pr")).toEqual([]);
    expect(await numbers(h, "no:assignee state:closed")).toEqual([3]);
    expect(await numbers(h, "updated:>=2000-01-01 login")).toEqual([3, 1]);
  });

  it("refuses a missing q and a repository it cannot see with 422", async () => {
    const h = await seeded();
    expect((await h.call("GET", "/search/issues")).status).toBe(422);
    expect((await h.call("GET", "/search/issues?q=repo:acme/secret")).status).toBe(422);
  });

  it("uses the separate search bucket and sends no ETag", async () => {
    const h = await seeded("search=2/min");
    const first = await h.call("GET", "/search/issues?q=login");
    expect(first.headers.get("x-ratelimit-resource")).toBe("search");
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("etag")).toBeNull();
    await h.call("GET", "/search/issues?q=login");
    const third = await h.call("GET", "/search/issues?q=login");
    expect(third.status).toBe(403);
    expect(third.headers.get("x-ratelimit-remaining")).toBe("0");
    const core = await h.call("GET", "/repos/acme/widgets/issues");
    expect(core.status).toBe(200);
    expect(core.headers.get("x-ratelimit-resource")).toBe("core");
  });
});
