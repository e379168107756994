// Jira adapter migration cost: migrates STORIES stories, each with 3 sub-tasks, 2 comments and
// 2 time entries (worklogs), into the Jira sandbox (rate limits off) through the adapter:
// stories and sub-tasks through bulk create (createMany, ≤ 50 per call) with their follow-ups
// (sprint moves ≤ 50 per call, workflow transitions to the wanted status), then comments and
// worklogs one call each. Figures: wall time, and API calls per created item by kind.
// Per-issue write pacing stays on (it never waits here: no issue takes 20 writes in 2 s);
// endpoint burst pacing is off because the sandbox runs with its limits off.
// Usage: npm run bench -- jira-migrate   (BENCH_JIRA_STORIES, BENCH_JIRA_CONCURRENCY)
// The sandbox runs in a worker thread, so that its event loop is not the adapter's.
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { createJiraTracker } from "../dist/adapters/jira/index.js";
import { createGate } from "../dist/gate/gate.js";
import { JIRA_ISSUE_WRITE_WINDOWS } from "../dist/gate/gate-limits.js";

const STORIES = Number(process.env.BENCH_JIRA_STORIES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_JIRA_CONCURRENCY ?? 8);
const STATUSES = ["To Do", "In Progress", "Testing", "Done"];

async function startSandboxWorker(options) {
  const sandboxUrl = new URL("../dist/sandboxes/jira/index.js", import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    import(workerData.sandboxUrl).then(async ({ startJiraSandbox }) => {
      const s = await startJiraSandbox(workerData.options);
      parentPort.postMessage({ url: s.url, email: s.email, token: s.token, projectKey: s.projectKey });
      parentPort.once("message", () => s.close().then(() => parentPort.postMessage("closed")));
    });`;
  const worker = new Worker(code, { eval: true, workerData: { sandboxUrl, options } });
  const [info] = await once(worker, "message");
  return {
    ...info,
    stats: async () => (await fetch(`${info.url}/_sandbox/stats`)).json(),
    close: async () => {
      worker.postMessage("close");
      await once(worker, "message");
      await worker.terminate();
    },
  };
}

async function pool(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function ok(results, what) {
  const failed = results.filter((r) => r instanceof Error);
  if (failed.length > 0) throw new Error(`${failed.length} ${what} failed: ${failed[0].message}`);
  return results;
}

const per = (calls, items) => (items === 0 ? 0 : Number((calls / items).toFixed(3)));

export function run() {
  return runMigration({ deployment: "cloud", stories: STORIES });
}

/**
 * The migration against a Cloud or a Data Center sandbox (jira-dc-migrate.bench.mjs compares
 * them); on Data Center users are named by login and the token is a PAT.
 */
export async function runMigration({ deployment, stories: count }) {
  const dc = deployment === "datacenter";
  const user = (login) => (dc ? login : `acc-${login}`);
  const sandbox = await startSandboxWorker({ rateLimits: "off", deployment });
  // Jira's request gate as the CLI builds it for writes: per-issue windows (20/2 s, 100/30 s).
  // Its counters are the run's calls (the figures below), as in the CLI's reports.
  const gate = createGate({
    system: "jira",
    limits: { concurrency: CONCURRENCY, keyWindows: JIRA_ISSUE_WRITE_WINDOWS },
  }).forRun({ maxWaitMs: Infinity });
  const tracker = createJiraTracker({
    baseUrl: sandbox.url,
    email: sandbox.email,
    token: sandbox.token,
    projectKey: sandbox.projectKey,
    gate,
    deployment,
  });
  try {
    const started = Date.now();
    const sprints = [];
    for (let i = 1; i <= 5; i++) {
      sprints.push(
        await tracker.ensureIteration({
          name: `Sprint ${i}`,
          startDate: `2026-0${i}-01`,
          durationDays: 14,
        }),
      );
    }
    const storyDrafts = Array.from({ length: count }, (_, i) => ({
      kind: "story",
      title: `Story ${i + 1}`,
      description: `As a user I want feature ${i + 1}\nso that **it works**.\n\n- step one\n- step two`,
      status: STATUSES[i % STATUSES.length],
      priority: "Medium",
      estimate: (i % 8) + 1,
      iteration: { id: sprints[i % sprints.length].id, name: sprints[i % sprints.length].name },
      assignees: [{ id: user("alice") }],
      labels: ["bench", `s${i % 10}`],
      marker: { job: "bench", origin: "tinypm", originKind: "story", originId: String(i + 1) },
      metadata: { color: "YELLOW" },
    }));
    const stories = ok(await tracker.createMany(storyDrafts), "stories");
    const storiesDone = Date.now();
    const taskDrafts = stories.flatMap((s, i) =>
      [1, 2, 3].map((n) => ({
        kind: "task",
        parentId: s.id,
        title: `Task ${i + 1}.${n}`,
        description: "do it",
        status: n === 1 ? "Done" : "To Do",
        assignees: [],
        labels: [],
        marker: { job: "bench", origin: "tinypm", originKind: "task", originId: `${i + 1}-${n}` },
      })),
    );
    const tasks = ok(await tracker.createMany(taskDrafts), "sub-tasks");
    const tasksDone = Date.now();
    await pool(stories, CONCURRENCY, async (s) => {
      for (let c = 1; c <= 2; c++) {
        await tracker.addComment(
          { kind: "story", id: s.id },
          {
            author: { name: "Alice" },
            createdAt: "2026-01-02T03:04:05.000",
            body: `comment ${c}\non ${s.id}`,
          },
        );
      }
    });
    const commentsDone = Date.now();
    await pool(stories, CONCURRENCY, async (s, i) => {
      for (let t = 0; t < 2; t++) {
        await tracker.addTimeEntry(
          { kind: "task", id: tasks[i * 3].id },
          { user: { id: user("bob") }, date: "2026-02-03", hours: 1.5, comment: "work" },
        );
      }
    });
    const finished = Date.now();
    const calls = gate.counters();
    const k = calls.byOperation;
    const stats = await sandbox.stats();
    const items = stories.length + tasks.length + 4 * stories.length;
    return {
      name: dc ? "jira-migrate (Data Center)" : "jira-migrate",
      figures: {
        stories: stories.length,
        "sub-tasks": tasks.length,
        comments: k["comment.create"] ?? 0,
        worklogs: k["worklog.create"] ?? 0,
        "wall time (s)": ((finished - started) / 1000).toFixed(1),
        "stories phase (s)": ((storiesDone - started) / 1000).toFixed(1),
        "sub-tasks phase (s)": ((tasksDone - storiesDone) / 1000).toFixed(1),
        "comments phase (s)": ((commentsDone - tasksDone) / 1000).toFixed(1),
        "worklogs phase (s)": ((finished - commentsDone) / 1000).toFixed(1),
        "bulk-create calls per issue": per(
          k["issue.bulkCreate"] ?? 0,
          stories.length + tasks.length,
        ),
        "search (read-back) calls per issue": per(
          k["issue.search"] ?? 0,
          stories.length + tasks.length,
        ),
        "transition calls per issue": per(
          (k["transition.do"] ?? 0) + (k["transition.list"] ?? 0),
          stories.length + tasks.length,
        ),
        "sprint-move calls per story": per(k["sprint.move"] ?? 0, stories.length),
        "comment calls per comment": per(k["comment.create"] ?? 0, 2 * stories.length),
        "worklog calls per worklog": per(k["worklog.create"] ?? 0, 2 * stories.length),
        "API calls per created item": per(calls.reads + calls.writes, items),
        "writes per created item": per(calls.writes, items),
        "calls by kind": JSON.stringify(k),
        "sandbox requests": stats.requests,
        "sandbox 429s": stats.rateLimited,
      },
      targets: {
        "bulk-create calls per issue": "≤ 0.05 (bulk create, 50 per call)",
      },
    };
  } finally {
    await tracker.close();
    await sandbox.close();
  }
}
