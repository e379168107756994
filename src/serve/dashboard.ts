import { escapeHtml as h } from "../report/escape.js";
import { formatValue } from "../report/values.js";
import type { ReportValue } from "../report/types.js";
import { silentFor } from "../state/worker-processes.js";
import type { ConflictApi, JobApi, RunApi, WorkerApi } from "./api-routes.js";
import { claimsCell, claimsSection } from "./dashboard-claims.js";
import type { ConflictItem } from "./item-pages.js";

/** The dashboard's style sheet, served as /dashboard.css (the CSP allows no inline style). */
export const DASHBOARD_CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#1b1f24;background:#fff}
h1{font-size:1.4rem;margin:0 0 .2rem} h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
table{border-collapse:collapse;width:100%} th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d8dee4;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
.muted{color:#59636e} .ok{color:#1a7f37} .partial,.interrupted{color:#9a6700} .failed{color:#d1242f} .running{color:#0969da}
form{display:inline;margin:0} button{font:inherit;padding:.2rem .6rem;border:1px solid #8c959f;border-radius:4px;background:#f6f8fa;cursor:pointer}
button:hover{background:#eaeef2} code{font-size:.92em} .value{white-space:pre-wrap;word-break:break-word;max-width:28rem}
nav{margin:.3rem 0 1rem} nav a{margin-right:1rem} .flash{padding:.5rem .8rem;background:#ddf4ff;border:1px solid #54aeff;border-radius:4px}
`;

/** What every form on the page carries. */
interface PageContext {
  readonly csrf: string;
  /** Logged in with the token (shows a logout button). */
  readonly session: boolean;
  readonly flash?: string | undefined;
}

function layout(title: string, body: string, ctx: PageContext): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<link rel="stylesheet" href="/dashboard.css">
</head>
<body>
<h1>${h(title)}</h1>
<nav><a href="/">Jobs</a><a href="/#runs">Runs</a><a href="/#conflicts">Conflicts</a><a href="/#claims">Claims</a><a href="/#workers">Workers</a><a href="/metrics">Metrics</a>${
    ctx.session
      ? `<form method="post" action="/logout"><input type="hidden" name="csrf" value="${h(ctx.csrf)}"><button type="submit">Log out</button></form>`
      : ""
  }</nav>
${ctx.flash === undefined ? "" : `<p class="flash" role="status">${h(ctx.flash)}</p>`}
${body}
</body>
</html>
`;
}

const when = (iso: string | null): string =>
  iso === null
    ? `<span class="muted">—</span>`
    : `<time datetime="${h(iso)}">${h(iso.replace("T", " ").replace(/\.\d+Z$/, "Z"))}</time>`;

const outcome = (o: string): string => `<span class="${h(o)}">${h(o)}</span>`;

/** A run's counts in words: `3 created, 1 conflict` (the key `conflicts` is a noun). */
export function counts(c: Readonly<Record<string, number>>): string {
  const keys = ["created", "updated", "unchanged", "conflicts", "failed", "deleted"];
  return (
    keys
      .filter((k) => (c[k] ?? 0) > 0)
      .map((k) => {
        const n = c[k] ?? 0;
        return `${n} ${k === "conflicts" && n === 1 ? "conflict" : k}`;
      })
      .join(", ") || `<span class="muted">nothing</span>`
  );
}

/** Target items by their names: GitHub issues as `#7`, Jira keys as they are. */
const itemNames = (items: readonly string[]): string =>
  items.map((i) => (/^\d+$/.test(i) ? `#${i}` : i)).join(", ");

/** `story` → `stories`, `task` → `tasks`. */
const plural = (kind: string): string =>
  kind.endsWith("y") ? `${kind.slice(0, -1)}ies` : `${kind}s`;

function jobRow(j: JobApi, ctx: PageContext): string {
  const items = Object.entries(j.items)
    .map(([k, n]) => `${n} ${n === 1 ? k : plural(k)}`)
    .join(", ");
  const state = j.running
    ? `<span class="running">running</span>${j.pending ? " (another run waits)" : ""}${j.activity === null ? "" : `<br><span class="muted" data-activity>${h(j.activity)}</span>`}`
    : j.pending
      ? `<span class="running">queued</span>`
      : j.runningOn !== null
        ? `<span class="running">running on ${h(j.runningOn)}</span>`
        : `<span class="muted">idle</span>`;
  const requested =
    j.requested === null
      ? ""
      : `<br><span class="running" data-requested="${j.requested.deliveries}">${j.requested.deliveries} ${j.requested.deliveries === 1 ? "delivery waits" : "deliveries wait"} for a follow-up run</span>`;
  const last =
    j.lastError !== null
      ? `${outcome("failed")} ${when(j.lastError.at)}<br><span class="failed" data-last-error>${h(j.lastError.error)}</span>`
      : j.lastRun === null
        ? `<span class="muted">never</span>`
        : `${outcome(j.lastRun.outcome)} ${when(j.lastRun.finishedAt ?? j.lastRun.startedAt)}<br><span class="muted">${counts(j.lastRun.counts)}</span>`;
  return `<tr data-job="${h(j.name)}">
<td><strong>${h(j.name)}</strong><br><span class="muted">→ ${h(j.target.name)} (${h(j.target.type)})</span></td>
<td>${state}${requested}</td>
<td>${last}</td>
<td>${when(j.lastSuccessAt)}</td>
<td>${when(j.nextRun)}<br><span class="muted">${h(j.schedule)}</span></td>
<td>${items === "" ? `<span class="muted">none</span>` : h(items)}</td>
<td data-conflicts="${j.conflictsOpen}">${j.conflictsOpen}</td>
<td data-failures="${j.failuresParked}">${j.failuresParked}</td>
${claimsCell(j)}
<td><form method="post" action="/jobs/${encodeURIComponent(j.name)}/sync"><input type="hidden" name="csrf" value="${h(ctx.csrf)}"><button type="submit">Sync now</button></form></td>
</tr>`;
}

function runRow(r: RunApi, error: string | undefined): string {
  const id =
    r.report === null
      ? `<code>${h(r.id)}</code>`
      : `<a href="${h(r.report)}"><code>${h(r.id)}</code></a>`;
  const why = r.triggers === null ? "" : r.triggers.join(", ");
  const items =
    r.items === null
      ? ""
      : ` · only ${r.items.length === 1 ? "item" : "items"} ${h(itemNames(r.items))}`;
  const failure =
    error === undefined ? "" : `<br><span class="failed" data-run-error>${h(error)}</span>`;
  const by = r.workerId ?? (r.host === null ? `pid ${r.pid}` : `${r.host} pid ${r.pid}`);
  return `<tr data-run="${h(r.id)}" data-worker-id="${h(by)}"><td>${id}</td><td>${h(r.job)}</td><td>${outcome(r.outcome)}</td><td>${when(r.startedAt)}</td><td>${when(r.finishedAt)}</td><td>${counts(r.counts)}</td><td class="muted">${h(why)}${items}${failure}</td><td class="muted"><code>${h(by)}</code></td></tr>`;
}

const value = (v: unknown): string =>
  `<div class="value">${h(formatValue(v as ReportValue, { max: 2000 }))}</div>`;

/** `<a href>label</a>`, or the label alone without a page. */
const linked = (label: string, url: string | undefined): string =>
  url === undefined ? h(label) : `<a href="${h(url)}" rel="noreferrer">${h(label)}</a>`;

function conflictRow(c: ConflictApi, item: ConflictItem | undefined, ctx: PageContext): string {
  const take = (side: "tinypm" | "target", label: string): string =>
    `<form method="post" action="/conflicts/${c.id}/resolve"><input type="hidden" name="csrf" value="${h(ctx.csrf)}"><input type="hidden" name="take" value="${side}"><button type="submit" name="side" value="${side}">${label}</button></form>`;
  return `<tr data-conflict="${c.id}">
<td>#${c.id}<br><span class="muted">${h(c.job)}</span></td>
<td>${item?.title === undefined ? "" : `<strong data-title>${h(item.title)}</strong><br>`}${linked(`tinyPM ${c.kind} #${c.tinypmId}`, item?.tinypmUrl)} ⇄ ${linked(/^\d+$/.test(c.targetId) ? `#${c.targetId}` : c.targetId, item?.targetUrl)}</td>
<td><code>${h(c.field)}</code></td>
<td>${value(c.baseValue)}</td>
<td>${value(c.tinypmValue)}</td>
<td>${value(c.targetValue)}</td>
<td>${take("tinypm", "Take tinyPM")} ${take("target", "Take target")}</td>
</tr>`;
}

function workerRow(w: WorkerApi): string {
  const jobs = w.jobs.length === 0 ? `<span class="muted">none</span>` : h(w.jobs.join(", "));
  return `<tr data-worker="${h(w.host)}:${w.pid}" data-alive="${String(w.alive)}" data-worker-id="${h(w.id)}">
<td>${h(w.host)}${w.self ? ` <span class="muted">(this process)</span>` : ""}</td>
<td>${w.pid}</td>
<td><code>${h(w.id)}</code></td>
<td>${when(w.startedAt)}</td>
<td>${h(silentFor(w.silentMs))}</td>
<td>${jobs}</td>
<td>${w.alive ? `<span class="ok">alive</span>` : `<span class="failed">dead</span>`}</td>
</tr>`;
}

/** The dashboard: jobs, recent runs, open conflicts, workers; forms post back to the service. */
export function renderDashboard(
  data: {
    jobs: readonly JobApi[];
    runs: readonly RunApi[];
    conflicts: readonly ConflictApi[];
    workers: readonly WorkerApi[];
    /** Title and pages of each conflict's item, by conflict id. */
    conflictItems?: ReadonlyMap<number, ConflictItem> | undefined;
    /** The error of each failed run this service ran, by run id. */
    runErrors?: ReadonlyMap<string, string> | undefined;
  },
  ctx: PageContext,
): string {
  const jobs = `<h2 id="jobs">Jobs</h2>
<table><thead><tr><th>Job</th><th>Now</th><th>Last run</th><th>Last success</th><th>Next run</th><th>Linked items</th><th>Open conflicts</th><th>Parked failures</th><th>Import claims</th><th></th></tr></thead>
<tbody>${data.jobs.map((j) => jobRow(j, ctx)).join("\n")}</tbody></table>`;
  const runs = `<h2 id="runs">Recent runs</h2>${
    data.runs.length === 0
      ? `<p class="muted">No runs yet.</p>`
      : `<table><thead><tr><th>Run</th><th>Job</th><th>Outcome</th><th>Started</th><th>Finished</th><th>Items</th><th>Why</th><th>Worker</th></tr></thead><tbody>${data.runs.map((r) => runRow(r, data.runErrors?.get(r.id))).join("\n")}</tbody></table>`
  }`;
  const conflicts = `<h2 id="conflicts">Open conflicts</h2>${
    data.conflicts.length === 0
      ? `<p class="muted">No open conflicts.</p>`
      : `<p class="muted">A field changed on both sides. Take one side's value: the next run of the job writes it to the other side.</p>
<table><thead><tr><th>Conflict</th><th>Item</th><th>Field</th><th>Base</th><th>tinyPM</th><th>Target</th><th></th></tr></thead><tbody>${data.conflicts.map((c) => conflictRow(c, data.conflictItems?.get(c.id), ctx)).join("\n")}</tbody></table>`
  }`;
  const workers = `<h2 id="workers">Workers</h2>
<p class="muted">The processes working on the state. A worker silent for longer than the lease life (30 s) is dead: its jobs are free for the others.</p>
<table><thead><tr><th>Host</th><th>Pid</th><th>Worker id</th><th>Started</th><th>Last heartbeat</th><th>Jobs held</th><th>State</th></tr></thead><tbody>${data.workers.map(workerRow).join("\n")}</tbody></table>`;
  const claims = claimsSection(data.jobs);
  return layout("tinypm-sync", `${jobs}\n${runs}\n${conflicts}\n${claims}\n${workers}`, ctx);
}

/** The login form (when the service binds beyond loopback and asks for its token). */
export function renderLogin(failed: boolean): string {
  return layout(
    "tinypm-sync: log in",
    `${failed ? `<p class="flash failed" role="alert">That token is not right.</p>` : ""}
<form method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password" required></label> <button type="submit">Log in</button></form>
<p class="muted">The token is the value of the environment variable named by <code>serve.auth.tokenEnv</code>.</p>`,
    { csrf: "", session: false },
  );
}

/**
 * A run's HTML report as the service serves it: with a way back to the dashboard and to the
 * job's runs, placed first in its body.
 */
export function withBackLink(report: string, job: string): string {
  const nav = `<nav data-back><a href="/">← Dashboard</a> · <a href="/#runs">Runs</a> · <a href="/#jobs">Job ${h(job)}</a></nav>`;
  return report.replace(/<body([^>]*)>/, (m) => `${m}\n${nav}`);
}

/** A short page for a run whose report is no longer kept. */
export function renderRunGone(runId: string): string {
  return layout(
    "Run report not kept",
    `<p>The report of run <code>${h(runId)}</code> is not kept by this service (it keeps the last few runs of each job). Its summary is in <a href="/#runs">Recent runs</a>.</p>`,
    { csrf: "", session: false },
  );
}
