import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import type { GithubTracker } from "../../src/adapters/github/types.js";
import { PayloadInvalidError } from "../../src/core/errors.js";
import type { UnreadableItem } from "../../src/core/tracker.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startHostileProxy, type HostileProxy } from "./cli-world.js";

/**
 * Issue 31: one sub-issue whose payload fails validation (a proxy breaking its `state` in the
 * parent's sub-issue listing) is handed to the caller as a task with its number, title and what
 * is wrong, and the parent's other sub-issues are read; a listing that is no list still fails the
 * read. Once the proxy stops, it reads again.
 */

/** Breaks, in every answer that is a list of issues, the one titled `title`. */
function breaking(title: string): (body: string) => string {
  return (body) => {
    const json = JSON.parse(body) as unknown;
    if (!Array.isArray(json)) return body;
    for (const i of json as Record<string, unknown>[]) if (i.title === title) i.state = "haunted";
    return JSON.stringify(json);
  };
}

describe("a GitHub sub-issue whose payload fails validation, one of its parent's", () => {
  let sandbox: GithubSandbox;
  let proxy: HostileProxy;
  let tracker: GithubTracker;
  const number: Record<string, string> = {};

  beforeAll(async () => {
    sandbox = await startGithubSandbox();
    proxy = await startHostileProxy(sandbox);
    const call = async (path: string, body: unknown): Promise<{ id: number; number: number }> => {
      const res = await fetch(`${sandbox.url}/repos/${sandbox.owner}/${sandbox.repo}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${sandbox.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${String(res.status)}`);
      return (await res.json()) as { id: number; number: number };
    };
    const parent = await call("/issues", { title: "Checkout" });
    number.parent = String(parent.number);
    for (const title of ["Card form", "Receipt mail"]) {
      const child = await call("/issues", { title });
      number[title] = String(child.number);
      await call(`/issues/${String(parent.number)}/sub_issues`, { sub_issue_id: child.id });
    }
    tracker = createGithubTracker({
      baseUrl: proxy.url.replace(/\/$/, ""),
      token: sandbox.token,
      owner: sandbox.owner,
      repo: sandbox.repo,
    });
  });
  afterAll(async () => {
    await tracker.close();
    await proxy.close();
    await sandbox.close();
  });

  const tasks = async (onUnreadable?: (u: UnreadableItem) => void) => {
    const out: string[] = [];
    const query = { kind: "task" as const, parentId: number.parent ?? "" };
    for await (const t of tracker.list(query, onUnreadable === undefined ? {} : { onUnreadable }))
      out.push(`${t.kind}:${t.id}:${String(t.parentId)}`);
    return out;
  };

  it("is handed over as a task, named by number and title with what is wrong; the rest is read", async () => {
    proxy.set({ route: /\/sub_issues/, rewrite: breaking("Receipt mail") });
    const bad: UnreadableItem[] = [];
    expect(await tasks((u) => bad.push(u))).toEqual([
      `task:${String(number["Card form"])}:${String(number.parent)}`,
    ]);
    expect(bad.map((u) => [u.kind, u.id, u.title, u.error.code])).toEqual([
      ["task", number["Receipt mail"], "Receipt mail", "payload_invalid"],
    ]);
    expect(bad[0]?.error.message).toMatch(
      new RegExp(
        `^GitHub issue #${String(number["Receipt mail"])} "Receipt mail" cannot be read \\(issues\\.listSubIssues\\): state`,
      ),
    );
    // The GitHub extra reads the same listing alike.
    const extra: UnreadableItem[] = [];
    const subs = await tracker.listSubIssues(number.parent ?? "", {
      onUnreadable: (u) => extra.push(u),
    });
    expect(subs.map((s) => s.title)).toEqual(["Card form"]);
    expect(extra.map((u) => u.id)).toEqual([number["Receipt mail"]]);
  });

  it("fails the read when the caller takes no unreadable items", async () => {
    await expect(tasks()).rejects.toBeInstanceOf(PayloadInvalidError);
  });

  it("a listing that is no list fails the read even when the caller takes unreadable items", async () => {
    proxy.set({ route: /\/sub_issues/, rewrite: () => JSON.stringify({ message: "haunted" }) });
    await expect(tasks(() => undefined)).rejects.toThrow(/issues\.listSubIssues/);
  });

  it("reads every sub-issue once the answers are whole again", async () => {
    proxy.set(undefined);
    const bad: UnreadableItem[] = [];
    expect((await tasks((u) => bad.push(u))).sort()).toEqual(
      [number["Card form"], number["Receipt mail"]]
        .map((n) => `task:${String(n)}:${String(number.parent)}`)
        .sort(),
    );
    expect(bad).toEqual([]);
  });
});
