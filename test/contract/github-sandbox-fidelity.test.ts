import { afterEach, describe, expect, it } from "vitest";
import type { ChangePage } from "../../src/core/tracker.js";
import { startGithubHarness, type GithubHarness } from "./github-setup.js";
import { startHarness, type Harness } from "./github-sandbox-helpers.js";

/** One test per GitHub entry of the fidelity ledger in docs/sandboxes.md. */

let h: Harness | undefined;
let gh: GithubHarness | undefined;
afterEach(async () => {
  await h?.sandbox.close();
  await gh?.close();
  h = undefined;
  gh = undefined;
});

async function body<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

describe("GitHub sandbox fidelity ledger", () => {
  it("G1 keeps a milestone's due_on as midnight US Pacific of the Pacific day", async () => {
    h = await startHarness();
    const due = async (dueOn: string): Promise<string> => {
      const res = await h!.call("POST", "/repos/acme/widgets/milestones", {
        body: { title: dueOn, due_on: dueOn },
      });
      expect(res.status).toBe(201);
      return (await body<{ due_on: string }>(res)).due_on;
    };
    expect(await due("2030-06-30T00:00:00Z")).toBe("2030-06-29T07:00:00Z");
    expect(await due("2030-06-30T12:00:00Z")).toBe("2030-06-30T07:00:00Z");
    expect(await due("2030-01-15T12:00:00Z")).toBe("2030-01-15T08:00:00Z");
    expect(await due("2030-11-03T12:00:00Z")).toBe("2030-11-03T07:00:00Z");
    expect(await due("2030-11-04T12:00:00Z")).toBe("2030-11-04T08:00:00Z");
  });

  it("G2 stamps updated_at with the real second: edits in one second tie", async () => {
    const t = Math.floor(Date.now() / 1000) * 1000 + 400;
    h = await startHarness({ now: () => t });
    const created = await body<{ updated_at: string }>(
      await h.call("POST", "/repos/acme/widgets/issues", { body: { title: "a" } }),
    );
    const stamps: string[] = [created.updated_at];
    for (const title of ["b", "c", "d"]) {
      const res = await h.call("PATCH", "/repos/acme/widgets/issues/1", { body: { title } });
      stamps.push((await body<{ updated_at: string }>(res)).updated_at);
    }
    const second = new Date(Math.floor(t / 1000) * 1000).toISOString().replace(".000Z", "Z");
    expect(new Set(stamps)).toEqual(new Set([second]));
  });

  it("G3 the adapter's change feed sees every edit even when they share updated_at", async () => {
    const t = Math.floor(Date.now() / 1000) * 1000 + 100;
    gh = await startGithubHarness({ now: () => t });
    const item = await gh.tracker.create({
      kind: "story",
      title: "first",
      status: "open",
      assignees: [],
      labels: [],
    });
    const collect = async (from: ChangePage["checkpoint"] | undefined): Promise<ChangePage[]> => {
      const pages: ChangePage[] = [];
      for await (const p of gh!.tracker.changes(from)) pages.push(p);
      return pages;
    };
    const titles = (pages: ChangePage[]): string[] =>
      pages.flatMap((p) => p.changes.flatMap((c) => (c.kind === "upsert" ? [c.item.title] : [])));
    const first = await collect(undefined);
    expect(titles(first)).toEqual(["first"]);
    await gh.tracker.update({ kind: "story", id: item.id }, { set: { title: "second" } });
    const second = await collect(first.at(-1)?.checkpoint);
    expect(titles(second)).toEqual(["second"]);
    await gh.tracker.update({ kind: "story", id: item.id }, { set: { title: "third" } });
    const third = await collect(second.at(-1)?.checkpoint);
    expect(titles(third)).toEqual(["third"]);
    // Nothing new: nothing emitted twice.
    expect(titles(await collect(third.at(-1)?.checkpoint))).toEqual([]);
  });

  it("G4 serves GET /repositories/{id}", async () => {
    h = await startHarness();
    const repo = await body<{ id: number; full_name: string }>(
      await h.call("GET", "/repos/acme/widgets"),
    );
    const byId = await h.call("GET", `/repositories/${repo.id}`);
    expect(byId.status).toBe(200);
    expect((await body<{ full_name: string }>(byId)).full_name).toBe("acme/widgets");
    expect((await h.call("GET", `/repositories/${repo.id + 1}`)).status).toBe(404);
  });

  it("G5 hides the private repository from anonymous callers with 404, not 401", async () => {
    h = await startHarness();
    for (const path of [
      "/repos/acme/widgets",
      "/repos/acme/widgets/issues",
      "/repositories/1000",
    ]) {
      const res = await h.call("GET", path, { token: null });
      expect([path, res.status]).toEqual([path, 404]);
      expect((await body<{ message: string }>(res)).message).toBe("Not Found");
    }
    expect((await h.call("GET", "/user", { token: null })).status).toBe(401);
    expect((await h.call("GET", "/repos/acme/widgets", { token: "ghp_wrong" })).status).toBe(401);
  });

  it('G6 clears the milestone and the assignee with "" as with null', async () => {
    h = await startHarness();
    await h.call("POST", "/repos/acme/widgets/milestones", { body: { title: "M" } });
    await h.call("POST", "/repos/acme/widgets/issues", {
      body: { title: "a", milestone: 1, assignee: "bob" },
    });
    const res = await h.call("PATCH", "/repos/acme/widgets/issues/1", {
      body: { milestone: "", assignee: "" },
    });
    expect(res.status).toBe(200);
    const issue = await body<{ milestone: unknown; assignee: unknown; assignees: unknown[] }>(res);
    expect([issue.milestone, issue.assignee, issue.assignees]).toEqual([null, null, []]);
  });

  it("G7 records issue events and serves the timeline", async () => {
    h = await startHarness();
    await h.call("POST", "/repos/acme/widgets/milestones", { body: { title: "M" } });
    await h.call("POST", "/repos/acme/widgets/issues", { body: { title: "a", labels: ["bug"] } });
    await h.call("PATCH", "/repos/acme/widgets/issues/1", {
      body: { title: "b", milestone: 1, assignees: ["bob"], labels: [] },
    });
    await h.call("POST", "/repos/acme/widgets/issues/1/comments", { body: { body: "hi" } });
    await h.call("PATCH", "/repos/acme/widgets/issues/1", { body: { state: "closed" } });
    const events = await body<{ event: string; actor: { login: string } }[]>(
      await h.call("GET", "/repos/acme/widgets/issues/1/events"),
    );
    expect(events.map((e) => e.event)).toEqual([
      "labeled",
      "renamed",
      "unlabeled",
      "assigned",
      "milestoned",
      "closed",
    ]);
    expect(events.every((e) => e.actor.login === "alice")).toBe(true);
    const timeline = await body<{ event: string; body?: string }[]>(
      await h.call("GET", "/repos/acme/widgets/issues/1/timeline"),
    );
    expect(timeline.map((e) => e.event)).toContain("commented");
    expect(timeline.find((e) => e.event === "commented")?.body).toBe("hi");
    expect(timeline.at(-1)?.event).toBe("closed");
    const repoWide = await body<{ event: string; issue: { number: number } }[]>(
      await h.call("GET", "/repos/acme/widgets/issues/events"),
    );
    expect(repoWide[0]).toMatchObject({ event: "closed", issue: { number: 1 } });
    expect((await h.call("GET", "/repos/acme/widgets/issues/9/events")).status).toBe(404);
  });

  it("G8 answers an unknown X-GitHub-Api-Version with 400", async () => {
    h = await startHarness();
    for (const v of ["2023-01-01", "2030-01-01", "latest"]) {
      const res = await h.call("GET", "/repos/acme/widgets", {
        headers: { "x-github-api-version": v },
      });
      expect([v, res.status]).toEqual([v, 400]);
    }
    const ok = await h.call("GET", "/repos/acme/widgets", {
      headers: { "x-github-api-version": "2026-03-10" },
    });
    expect(ok.headers.get("x-github-api-version-selected")).toBe("2026-03-10");
  });

  it("G9 lists every rate-limit resource; 2026-03-10 drops the top-level rate", async () => {
    h = await startHarness();
    const all = await body<{ resources: Record<string, unknown>; rate?: unknown }>(
      await h.call("GET", "/rate_limit"),
    );
    for (const k of ["core", "search", "graphql", "code_search", "integration_manifest"]) {
      const r = all.resources[k] as { limit: unknown; remaining: unknown };
      expect([k, typeof r.limit, typeof r.remaining]).toEqual([k, "number", "number"]);
    }
    expect(all.rate).toEqual(all.resources.core);
    const v2 = await body<{ rate?: unknown }>(
      await h.call("GET", "/rate_limit", { headers: { "x-github-api-version": "2026-03-10" } }),
    );
    expect(v2.rate).toBeUndefined();
  });
});
