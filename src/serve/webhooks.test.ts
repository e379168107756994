import { Webhooks } from "@octokit/webhooks";
import { describe, expect, it, vi } from "vitest";
import type { ServeJob } from "./types.js";
import { createGithubWebhooks } from "./webhook-github.js";
import { createWebhookIntake } from "./webhook-intake.js";
import { createJiraWebhooks, jiraSignature, jiraSignatureValid } from "./webhook-jira.js";

const jobs: ServeJob[] = [
  {
    name: "gh",
    schedule: undefined,
    target: { name: "github", type: "github", owner: "Acme", repo: "widgets", webhookSecret: "s1" },
  },
  {
    name: "gh-other",
    schedule: undefined,
    target: { name: "other", type: "github", owner: "acme", repo: "gadgets", webhookSecret: "s2" },
  },
  {
    name: "jr",
    schedule: undefined,
    target: { name: "jira", type: "jira", project: "WID", webhookSecret: "s3" },
  },
];

async function github(secret: string, event: string, payload: unknown, id = "d-1") {
  const body = JSON.stringify(payload);
  return createGithubWebhooks(jobs).judge({
    body,
    headers: {
      "x-github-event": event,
      "x-github-delivery": id,
      "x-hub-signature-256": await new Webhooks({ secret }).sign(body),
    },
  });
}

describe("GitHub deliveries", () => {
  const repo = { full_name: "acme/widgets" };
  it("names the issue of issues and issue_comment events, for the jobs on that repository", async () => {
    const v = await github("s1", "issues", {
      action: "edited",
      issue: { number: 12 },
      repository: repo,
    });
    expect(v).toMatchObject({
      status: 202,
      outcome: "accepted",
      run: { jobs: ["gh"], items: new Set(["12"]) },
    });
    const c = await github("s1", "issue_comment", {
      action: "created",
      issue: { number: 3 },
      repository: repo,
    });
    expect(c.run?.items).toEqual(new Set(["3"]));
  });

  it("names both issues of a sub_issues event, and the whole job for milestone and label events", async () => {
    const s = await github("s1", "sub_issues", {
      action: "sub_issue_added",
      parent_issue: { number: 1 },
      sub_issue: { number: 2 },
      repository: repo,
    });
    expect(s.run?.items).toEqual(new Set(["1", "2"]));
    const m = await github("s1", "milestone", {
      action: "edited",
      milestone: { number: 1 },
      repository: repo,
    });
    expect(m.run).toMatchObject({ jobs: ["gh"], items: undefined });
  });

  it("refuses a signature made with another target's secret for this repository's jobs", async () => {
    // s2 is a real secret, but of the job on acme/gadgets: no job on acme/widgets is named.
    const v = await github("s2", "issues", {
      action: "edited",
      issue: { number: 1 },
      repository: repo,
    });
    expect(v).toMatchObject({ status: 202, outcome: "ignored" });
    expect(v.run).toBeUndefined();
    const bad = await github("nope", "issues", {
      action: "edited",
      issue: { number: 1 },
      repository: repo,
    });
    expect(bad).toMatchObject({ status: 401, outcome: "rejected" });
  });

  it("acknowledges other events and pings without a run", async () => {
    expect(await github("s1", "push", { repository: repo })).toMatchObject({
      status: 202,
      outcome: "ignored",
    });
    expect(await github("s1", "ping", { zen: "x" })).toMatchObject({
      status: 200,
      outcome: "ignored",
    });
  });
});

describe("Jira deliveries", () => {
  const judge = (payload: unknown, secret = "s3") => {
    const body = JSON.stringify(payload);
    return createJiraWebhooks(jobs).judge({
      body,
      headers: {
        "x-hub-signature": jiraSignature(body, secret),
        "x-atlassian-webhook-identifier": "j-1",
      },
    });
  };

  it("verifies sha256= signatures over the raw body", () => {
    expect(jiraSignatureValid("{}", jiraSignature("{}", "k"), "k")).toBe(true);
    expect(jiraSignatureValid("{ }", jiraSignature("{}", "k"), "k")).toBe(false);
    expect(jiraSignatureValid("{}", "sha256=zz", "k")).toBe(false);
    expect(judge({ webhookEvent: "jira:issue_updated" }, "wrong")).toMatchObject({ status: 401 });
  });

  it("names the issue of issue and comment events on the job's project", () => {
    const v = judge({
      webhookEvent: "jira:issue_updated",
      issue: { key: "WID-4", fields: { project: { key: "WID" } } },
    });
    expect(v).toMatchObject({ status: 202, run: { jobs: ["jr"], items: new Set(["WID-4"]) } });
    const c = judge({ webhookEvent: "comment_created", issue: { key: "WID-5", fields: {} } });
    expect(c.run?.items).toEqual(new Set(["WID-5"]));
    const other = judge({
      webhookEvent: "jira:issue_updated",
      issue: { key: "OPS-1", fields: {} },
    });
    expect(other).toMatchObject({ outcome: "ignored" });
    const sprint = judge({ webhookEvent: "sprint_started", sprint: { id: 1 } });
    expect(sprint.run).toMatchObject({ jobs: ["jr"], items: undefined });
  });

  it("names a worklog's issue by its id, and the deleted issue of jira:issue_deleted", () => {
    const w = judge({
      webhookEvent: "worklog_created",
      worklog: { id: "10001", issueId: "10042", timeSpentSeconds: 60 },
    });
    expect(w.run).toMatchObject({ jobs: ["jr"], items: new Set(["10042"]) });
    const d = judge({
      webhookEvent: "jira:issue_deleted",
      issue: { key: "WID-9", fields: { project: { key: "WID" } } },
    });
    expect(d.run?.items).toEqual(new Set(["WID-9"]));
  });
});

describe("the webhook intake", () => {
  it("debounces deliveries per job into one request with every named item; redeliveries count once", () => {
    vi.useFakeTimers();
    try {
      const fire = vi.fn();
      const intake = createWebhookIntake({ fire, debounceMs: 1000 });
      expect(intake.accept("github", "a", ["gh"], new Set(["1"]))).toBe("accepted");
      vi.advanceTimersByTime(600);
      expect(intake.accept("github", "b", ["gh"], new Set(["2"]))).toBe("accepted");
      expect(intake.accept("github", "a", ["gh"], new Set(["3"]))).toBe("duplicate");
      vi.advanceTimersByTime(600);
      expect(fire).not.toHaveBeenCalled();
      vi.advanceTimersByTime(500);
      expect(fire).toHaveBeenCalledTimes(1);
      expect(fire).toHaveBeenCalledWith("gh", new Set(["1", "2"]));
      intake.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("still fires within the longest wait under a steady stream, and a whole-job delivery absorbs items", () => {
    vi.useFakeTimers();
    try {
      const fire = vi.fn();
      const intake = createWebhookIntake({ fire, debounceMs: 1000, maxWaitMs: 3000 });
      for (let i = 0; i < 5; i++) {
        intake.accept("github", `d${i}`, ["gh"], i === 2 ? undefined : new Set([String(i)]));
        vi.advanceTimersByTime(900);
      }
      expect(fire).toHaveBeenCalledTimes(1);
      expect(fire).toHaveBeenCalledWith("gh", undefined);
      intake.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
