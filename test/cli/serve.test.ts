import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import {
  editConfig,
  eventually,
  getJson,
  parseMetrics,
  postGithubDelivery,
  startServe,
  type Served,
} from "./serve-support.js";

const SECRET = `hook-${randomUUID()}`;
let servers: Servers;
let config: string;
let served: Served;
const tmp = tempDir();

interface JobsAnswer {
  jobs: {
    name: string;
    lastRun: { id: string; outcome: string } | null;
    items: Record<string, number>;
  }[];
}
interface RunsAnswer {
  runs: {
    id: string;
    outcome: string;
    triggers: string[] | null;
    items: string[] | null;
    report: string | null;
  }[];
}

beforeAll(async () => {
  servers = await startServers("stories=3,tasks=1,comments=1");
  config = writeConfig(tmp.dir, servers);
  editConfig(config, (c) => {
    c.targets.github = { ...c.targets.github!, webhookSecretEnv: "GH_HOOK_SECRET" };
    c.jobs = c.jobs
      .filter((j) => j.name === "gh")
      .map((j) => ({ ...j, schedule: { every: "1h" } }));
  });
  served = await startServe(config, { ...servers.env, GH_HOOK_SECRET: SECRET });
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await servers.close();
  tmp.cleanup();
});

const issuesUrl = (): string =>
  `${servers.github.url}/repos/${servers.github.owner}/${servers.github.repo}/issues`;
const runs = (): Promise<RunsAnswer> => getJson<RunsAnswer>(`${served.url}/api/runs`);

describe("serve", () => {
  it("answers health at once and readiness once every system answered", async () => {
    expect(await getJson(`${served.url}/healthz`)).toEqual({ status: "ok" });
    const ready = await eventually(async () => {
      const res = await fetch(`${served.url}/readyz`);
      return res.status === 200 ? await res.json() : undefined;
    }, "readyz 200");
    expect(ready).toEqual({ status: "ready" });
  });

  it("runs every job at start and shows the run in /api and /metrics", async () => {
    const job = await eventually(async () => {
      const { jobs } = await getJson<JobsAnswer>(`${served.url}/api/jobs`);
      const gh = jobs.find((j) => j.name === "gh");
      return gh?.lastRun?.outcome === "ok" ? gh : undefined;
    }, "the startup run");
    expect(job.items).toEqual({ story: 3, task: 3 });
    const metrics = parseMetrics(await (await fetch(`${served.url}/metrics`)).text());
    expect(metrics.get('tinypm_sync_runs_total{job="gh",outcome="ok"}')).toBe(1);
    expect(metrics.get('tinypm_sync_items{job="gh",kind="story"}')).toBe(3);
    expect(metrics.get('tinypm_sync_conflicts_open{job="gh"}')).toBe(0);
    expect(metrics.get('tinypm_sync_failures_parked{job="gh"}')).toBe(0);
    expect(metrics.get('tinypm_sync_run_duration_seconds_count{job="gh"}')).toBe(1);
    expect(metrics.get('tinypm_sync_last_success_timestamp_seconds{job="gh"}')).toBeGreaterThan(
      Date.now() / 1000 - 600,
    );
    const writes = metrics.get(
      'tinypm_sync_api_requests_total{system="github",kind="write",status="201"}',
    );
    expect(writes).toBeGreaterThanOrEqual(6);
    expect(metrics.has("process_cpu_user_seconds_total")).toBe(true);
    expect(metrics.has("nodejs_heap_size_used_bytes")).toBe(true);
  });

  it("refuses deliveries with a bad or missing signature (401) and runs nothing for them", async () => {
    const body = JSON.stringify({ action: "edited", issue: { number: 1 } });
    const bad = await fetch(`${served.url}/webhooks/github`, {
      method: "POST",
      headers: {
        "x-github-event": "issues",
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
      },
      body,
    });
    expect(bad.status).toBe(401);
    const missing = await fetch(`${served.url}/webhooks/github`, {
      method: "POST",
      headers: { "x-github-event": "issues", "x-github-delivery": randomUUID() },
      body,
    });
    expect(missing.status).toBe(401);
    const wrongSecret = await postGithubDelivery(
      served.url,
      "not-the-secret",
      "issues",
      randomUUID(),
      {
        action: "edited",
      },
    );
    expect(wrongSecret.status).toBe(401);
    const metrics = parseMetrics(await (await fetch(`${served.url}/metrics`)).text());
    expect(
      metrics.get('tinypm_sync_webhook_deliveries_total{source="github",outcome="rejected"}'),
    ).toBe(3);
  });

  it("brings an edit on GitHub to tinyPM after a signed delivery, once per delivery id", async () => {
    const res = await fetch(`${issuesUrl()}?state=all&per_page=100`, {
      headers: { authorization: `token ${servers.github.token}` },
    });
    const issues = (await res.json()) as { number: number; title: string }[];
    const story = servers.tinypm.store.storiesOf(1)[0]!;
    const issue = issues.find((i) => i.title === story.name)!;
    const title = `${story.name} (edited on GitHub)`;
    const patched = await fetch(`${issuesUrl()}/${issue.number}`, {
      method: "PATCH",
      headers: {
        authorization: `token ${servers.github.token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ title }),
    });
    expect(patched.status).toBe(200);
    const delivery = randomUUID();
    const payload = {
      action: "edited",
      issue: { number: issue.number, title },
      changes: { title: { from: story.name } },
      repository: { full_name: `${servers.github.owner}/${servers.github.repo}` },
      sender: { login: "alice" },
    };
    const accepted = await postGithubDelivery(served.url, SECRET, "issues", delivery, payload);
    expect(accepted.status).toBe(202);
    await eventually(
      () => (servers.tinypm.store.story(story.id)?.name === title ? true : undefined),
      "the edited title in tinyPM",
    );
    const after = await eventually(async () => {
      const r = await runs();
      return r.runs.length === 2 && r.runs[0]?.outcome !== "running" ? r : undefined;
    }, "the webhook run to finish");
    expect(after.runs[0]).toMatchObject({
      outcome: "ok",
      triggers: ["webhook"],
      items: [String(issue.number)],
    });
    expect(after.runs[0]?.report).toMatch(/^\/runs\//);
    const report = await fetch(`${served.url}${after.runs[0]!.report!}`);
    expect(report.status).toBe(200);
    expect(await report.text()).toContain("Updated");

    const again = await postGithubDelivery(served.url, SECRET, "issues", delivery, payload);
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ message: "already received" });
    // Past the debounce window, a manual run shows whether the redelivery asked for a run too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const manual = await fetch(`${served.url}/api/jobs/gh/sync`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(manual.status).toBe(202);
    const third = await eventually(async () => {
      const r = await runs();
      return r.runs.length >= 3 && r.runs[0]?.outcome !== "running" ? r : undefined;
    }, "the manual run");
    expect(third.runs).toHaveLength(3);
    expect(third.runs[0]?.triggers).toEqual(["manual"]);
    const metrics = parseMetrics(await (await fetch(`${served.url}/metrics`)).text());
    expect(
      metrics.get('tinypm_sync_webhook_deliveries_total{source="github",outcome="accepted"}'),
    ).toBe(1);
    expect(
      metrics.get('tinypm_sync_webhook_deliveries_total{source="github",outcome="duplicate"}'),
    ).toBe(1);
    expect(metrics.get('tinypm_sync_runs_total{job="gh",outcome="ok"}')).toBe(3);
  });

  it("stops on SIGTERM with exit 0", async () => {
    served.proc.kill("SIGTERM");
    const r = await served.proc.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("stopped; state is consistent");
    expect(r.stderr).not.toContain(SECRET);
    expect(r.stderr).not.toContain(servers.github.token);
  });
});
