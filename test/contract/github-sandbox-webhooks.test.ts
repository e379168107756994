import type { EmitterWebhookEvent } from "@octokit/webhooks";
import { Webhooks } from "@octokit/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";

let sandbox: GithubSandbox | undefined;
let hook: WebhookReceiver | undefined;
afterEach(async () => {
  await sandbox?.close();
  await hook?.close();
  sandbox = undefined;
  hook = undefined;
});

describe("the GitHub sandbox's webhooks", () => {
  it("delivers issue_comment (created, edited, deleted), sub_issues, milestone and label events", async () => {
    hook = await startWebhookReceiver();
    const s = await startGithubSandbox({
      rateLimits: "off",
      webhook: { url: hook.url, secret: "gh-secret", retryDelaysMs: [] },
    });
    sandbox = s;
    const repo = `${s.url}/repos/${s.owner}/${s.repo}`;
    const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(`${repo}${path}`, {
        method,
        headers: { authorization: `token ${s.token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status).toBeLessThan(300);
      return res.status === 204 ? undefined : res.json();
    };
    const parent = (await call("POST", "/issues", { title: "Parent" })) as { number: number };
    const child = (await call("POST", "/issues", { title: "Child" })) as { id: number };
    const comment = (await call("POST", `/issues/${parent.number}/comments`, {
      body: "first",
    })) as { id: number };
    await call("PATCH", `/issues/comments/${comment.id}`, { body: "second" });
    await call("DELETE", `/issues/comments/${comment.id}`);
    await call("POST", `/issues/${parent.number}/sub_issues`, { sub_issue_id: child.id });
    await call("DELETE", `/issues/${parent.number}/sub_issue`, { sub_issue_id: child.id });
    const milestone = (await call("POST", "/milestones", { title: "M1" })) as { number: number };
    await call("DELETE", `/milestones/${milestone.number}`);
    await call("POST", "/labels", { name: "area:x", color: "ff0000" });
    await call("DELETE", "/labels/area:x");
    await s.drainWebhooks();

    const verifier = new Webhooks({ secret: "gh-secret" });
    for (const r of hook.got)
      expect(await verifier.verify(r.body, String(r.headers["x-hub-signature-256"]))).toBe(true);
    const seen = hook.got.map((r) => {
      const p = JSON.parse(r.body) as { action: string };
      return `${String(r.headers["x-github-event"])}.${p.action}`;
    });
    expect(seen).toEqual([
      "issues.opened",
      "issues.opened",
      "issue_comment.created",
      "issue_comment.edited",
      "issue_comment.deleted",
      "sub_issues.sub_issue_added",
      "sub_issues.sub_issue_removed",
      "milestone.created",
      "milestone.deleted",
      "label.created",
      "label.deleted",
    ]);
    const body = (i: number): unknown => JSON.parse(hook!.got[i]!.body);
    const edited = body(3) as EmitterWebhookEvent<"issue_comment.edited">["payload"];
    expect(edited.changes.body?.from).toBe("first");
    expect(edited.comment.body).toBe("second");
    expect(edited.issue.number).toBe(parent.number);
    const deleted = body(4) as EmitterWebhookEvent<"issue_comment.deleted">["payload"];
    expect(deleted.comment.id).toBe(comment.id);
    expect(deleted.comment.body).toBe("second");
    expect(deleted.issue.number).toBe(parent.number);
    const added = body(5) as EmitterWebhookEvent<"sub_issues.sub_issue_added">["payload"];
    expect(added.parent_issue.number).toBe(parent.number);
    expect(added.sub_issue.id).toBe(child.id);
    expect(added.sub_issue_id).toBe(child.id);
    const gone = body(8) as EmitterWebhookEvent<"milestone.deleted">["payload"];
    expect(gone.milestone.number).toBe(milestone.number);
    expect(gone.milestone.title).toBe("M1");
    const label = body(10) as EmitterWebhookEvent<"label.deleted">["payload"];
    expect(label.label.name).toBe("area:x");
    expect(label.label.color).toBe("ff0000");
    for (const i of [2, 3, 4, 5, 7, 9]) {
      const p = body(i) as EmitterWebhookEvent<"label.created">["payload"];
      expect(p.sender?.login).toMatch(/\S/);
      expect(p.repository.full_name).toBe(`${s.owner}/${s.repo}`);
    }
  });
});
