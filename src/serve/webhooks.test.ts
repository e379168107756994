import { Webhooks } from "@octokit/webhooks";
import { describe, expect, it, vi } from "vitest";
import type { ServeJob } from "./types.js";
import { createGithubWebhooks } from "./webhook-github.js";
import { createWebhookIntake } from "./webhook-intake.js";
import { createJiraWebhooks, jiraSignature, jiraSignatureValid } from "./webhook-jira.js";
import type { JiraIssueLocator } from "./webhook-jira-worklog.js";

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

  it("refuses a delivery without a signature, id, JSON body or understood payload", async () => {
    const hooks = createGithubWebhooks(jobs);
    const signed = async (body: string, headers: Record<string, string> = {}) =>
      hooks.judge({
        body,
        headers: {
          "x-github-event": "issues",
          "x-github-delivery": "d-2",
          "x-hub-signature-256": await new Webhooks({ secret: "s1" }).sign(body),
          ...headers,
        },
      });
    const rejected = (status: number, message: string) => ({
      status,
      body: { message },
      outcome: "rejected",
    });
    expect(await hooks.judge({ body: "{}", headers: { "x-github-event": "issues" } })).toEqual(
      rejected(401, "missing X-Hub-Signature-256"),
    );
    expect(await signed("{}", { "x-github-delivery": "" })).toEqual(
      rejected(400, "missing X-GitHub-Delivery"),
    );
    expect(await signed("{not json")).toEqual(rejected(400, "body is not JSON"));
    expect(await signed(JSON.stringify({ issue: { number: "one" } }))).toEqual(
      rejected(400, "payload not understood"),
    );
  });
});

function judge(payload: unknown, secret = "s3", list = jobs, locate?: JiraIssueLocator) {
  const body = JSON.stringify(payload);
  return createJiraWebhooks(list, locate).judge({
    body,
    headers: {
      "x-hub-signature": jiraSignature(body, secret),
      "x-atlassian-webhook-identifier": "j-1",
    },
  });
}

describe("Jira deliveries", () => {
  it("verifies sha256= signatures over the raw body", async () => {
    expect(jiraSignatureValid("{}", jiraSignature("{}", "k"), "k")).toBe(true);
    expect(jiraSignatureValid("{ }", jiraSignature("{}", "k"), "k")).toBe(false);
    expect(jiraSignatureValid("{}", "sha256=zz", "k")).toBe(false);
    expect(await judge({ webhookEvent: "jira:issue_updated" }, "wrong")).toMatchObject({
      status: 401,
    });
  });

  it("names the issue of issue and comment events on the job's project", async () => {
    const v = await judge({
      webhookEvent: "jira:issue_updated",
      issue: { key: "WID-4", fields: { project: { key: "WID" } } },
    });
    expect(v).toMatchObject({ status: 202, run: { jobs: ["jr"], items: new Set(["WID-4"]) } });
    const c = await judge({ webhookEvent: "comment_created", issue: { key: "WID-5", fields: {} } });
    expect(c.run?.items).toEqual(new Set(["WID-5"]));
    const other = await judge({
      webhookEvent: "jira:issue_updated",
      issue: { key: "OPS-1", fields: {} },
    });
    expect(other).toMatchObject({ outcome: "ignored" });
    const sprint = await judge({ webhookEvent: "sprint_started", sprint: { id: 1 } });
    expect(sprint.run).toMatchObject({ jobs: ["jr"], items: undefined });
  });

  it("names the deleted issue of jira:issue_deleted", async () => {
    const d = await judge({
      webhookEvent: "jira:issue_deleted",
      issue: { key: "WID-9", fields: { project: { key: "WID" } } },
    });
    expect(d.run?.items).toEqual(new Set(["WID-9"]));
  });

  it("refuses a delivery without a signature, identifier, JSON body or understood payload", async () => {
    const hooks = createJiraWebhooks(jobs);
    const signed = (body: string, headers: Record<string, string> = {}) =>
      hooks.judge({
        body,
        headers: {
          "x-hub-signature": jiraSignature(body, "s3"),
          "x-atlassian-webhook-identifier": "j-2",
          ...headers,
        },
      });
    const rejected = (status: number, message: string) => ({
      status,
      body: { message },
      outcome: "rejected",
    });
    expect(await hooks.judge({ body: "{}", headers: {} })).toEqual(
      rejected(401, "missing X-Hub-Signature"),
    );
    expect(await signed("{}", { "x-atlassian-webhook-identifier": "" })).toEqual(
      rejected(400, "missing X-Atlassian-Webhook-Identifier"),
    );
    expect(await signed("{not json")).toEqual(rejected(400, "body is not JSON"));
    expect(await signed(JSON.stringify({ webhookEvent: 7 }))).toEqual(
      rejected(400, "payload not understood"),
    );
  });
});

describe("Jira worklog deliveries (the issue by numeric id only)", () => {
  // Two sites signing with one secret; the second has a project no job syncs as well.
  const sites: ServeJob[] = [
    {
      name: "ja",
      schedule: undefined,
      target: {
        name: "a",
        type: "jira",
        project: "WID",
        baseUrl: "https://a.example",
        webhookSecret: "k",
      },
    },
    {
      name: "jb",
      schedule: undefined,
      target: {
        name: "b",
        type: "jira",
        project: "OPS",
        baseUrl: "https://b.example",
        webhookSecret: "k",
      },
    },
  ];
  const issues: Record<string, Record<string, { key: string; project: string }>> = {
    a: { "10042": { key: "WID-7", project: "WID" }, "10050": { key: "HR-1", project: "HR" } },
    b: { "10042": { key: "OPS-3", project: "OPS" } },
  };
  const asked: string[] = [];
  const locate: JiraIssueLocator = (target, id) => {
    asked.push(`${target}:${id}`);
    if (target === "down") throw new Error("site unreachable");
    return Promise.resolve(issues[target]?.[id]);
  };
  const worklog = (issueId: string, self?: string) => ({
    webhookEvent: "worklog_updated",
    worklog: { id: "1", issueId, timeSpentSeconds: 60, ...(self === undefined ? {} : { self }) },
  });

  it("goes to the jobs on the project of the site the worklog is on, naming the issue's key", async () => {
    asked.length = 0;
    const v = await judge(
      worklog("10042", "https://a.example/rest/api/3/issue/10042/worklog/1"),
      "k",
      sites,
      locate,
    );
    expect(v).toMatchObject({ status: 202, outcome: "accepted" });
    expect(v.run).toMatchObject({ jobs: ["ja"], items: new Set(["WID-7"]) });
    expect(asked).toEqual(["a:10042"]);
  });

  it("without a self link asks every site signed with the secret", async () => {
    asked.length = 0;
    const v = await judge(worklog("10042"), "k", sites, locate);
    expect(v.run?.jobs).toEqual(["ja", "jb"]);
    expect(v.run?.items).toEqual(new Set(["WID-7", "OPS-3"]));
    expect(asked.sort()).toEqual(["a:10042", "b:10042"]);
  });

  it("ignores a worklog on a project no job syncs, or on an issue no site has", async () => {
    const other = await judge(worklog("10050", "https://a.example/x"), "k", sites, locate);
    expect(other).toMatchObject({ status: 202, outcome: "ignored" });
    expect(other.body.message).toContain("HR-1");
    const none = await judge(worklog("999"), "k", sites, locate);
    expect(none).toMatchObject({ status: 202, outcome: "ignored" });
    expect(none.body.message).toContain("999");
  });

  it("a site that cannot answer still gets the delivery, by id (nothing dropped)", async () => {
    const down: ServeJob[] = [
      {
        name: "jd",
        schedule: undefined,
        target: { name: "down", type: "jira", project: "WID", webhookSecret: "k" },
      },
    ];
    const v = await judge(worklog("10042"), "k", down, locate);
    expect(v.run).toMatchObject({ jobs: ["jd"], items: new Set(["10042"]) });
    const unlocated = await judge(worklog("10042"), "k", down);
    expect(unlocated.run).toMatchObject({ jobs: ["jd"], items: new Set(["10042"]) });
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
