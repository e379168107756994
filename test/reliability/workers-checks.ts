import { createGithubTracker } from "../../src/adapters/github/index.js";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { ConflictRecord, LinkRecord, RunRecord, StateStore } from "../../src/state/store.js";
import type { Edit } from "./workers-edits.js";
import type { WorkersWorld } from "./workers-world.js";
import { listAll } from "./snapshot.js";

/** Both sides of one job, read through the adapters, with the job's links and conflicts. */
export interface JobSides {
  readonly job: string;
  readonly system: "github" | "jira";
  readonly tinypm: ReadonlyMap<string, WorkItem>;
  readonly target: ReadonlyMap<string, WorkItem>;
  readonly links: readonly LinkRecord[];
  readonly conflicts: readonly ConflictRecord[];
}

function trackers(world: WorkersWorld, job: string): { tinypm: Tracker; target: Tracker } {
  const n = Number(job.slice(2));
  const per = world.github.length;
  const gh = job.startsWith("gh");
  const tinypm = createTinypmTracker({
    baseUrl: world.tinypm.url,
    token: world.tinypm.token,
    projectId: gh ? n : per + n,
    timeoutMs: 60_000,
  });
  const g = world.github[n - 1];
  const j = world.jira[n - 1];
  const target =
    gh && g !== undefined
      ? createGithubTracker({
          baseUrl: g.url,
          token: g.token,
          owner: g.owner,
          repo: g.repo,
          timeoutMs: 60_000,
        })
      : j !== undefined
        ? createJiraTracker({
            baseUrl: j.url,
            projectKey: j.projectKey,
            email: j.email,
            token: j.token,
            timeoutMs: 60_000,
          })
        : undefined;
  if (target === undefined) throw new Error(`no target for ${job}`);
  return { tinypm, target };
}

export async function readSides(
  world: WorkersWorld,
  state: StateStore,
  job: string,
): Promise<JobSides> {
  const t = trackers(world, job);
  const byId = (items: WorkItem[]) => new Map(items.map((i) => [`${i.kind}:${i.id}`, i]));
  const links: LinkRecord[] = [];
  for await (const l of state.links(job)) links.push(l);
  return {
    job,
    system: job.startsWith("gh") ? "github" : "jira",
    tinypm: byId(await listAll(t.tinypm)),
    target: byId(await listAll(t.target)),
    links,
    conflicts: await state.conflicts({ job }),
  };
}

/** A target status in tinyPM terms (the mappings' story statuses). */
export function storyStatus(system: string, status: string): string {
  if (system === "tinypm") return status === "" ? "PENDING" : status;
  if (system === "github") {
    if (status === "closed:completed") return "ACCEPTED";
    return status.startsWith("closed") ? "REJECTED" : "PENDING";
  }
  if (status === "Done") return "ACCEPTED";
  return status === "Rejected" ? "REJECTED" : "PENDING";
}

const norm = (s: string | undefined): string => (s ?? "").trim();

/** The value of a field of an item in tinyPM terms. */
function valueOf(item: WorkItem, field: Edit["field"]): string {
  if (field === "title") return item.title;
  if (field === "description") return norm(item.description);
  return item.kind === "story" ? storyStatus(item.system, item.status) : item.status;
}

const openConflict = (s: JobSides, kind: string, tinypmId: string, field: string): boolean =>
  s.conflicts.some(
    (c) => c.status === "open" && c.kind === kind && c.tinypmId === tinypmId && c.field === field,
  );

/**
 * Duplicates: every item on each side is linked once, every target item carries a marker naming
 * a distinct tinyPM item, and both sides hold as many items of each kind as there are links.
 */
export function duplicateProblems(s: JobSides): string[] {
  const out: string[] = [];
  for (const kind of ["story", "task"] as const) {
    const links = s.links.filter((l) => l.kind === kind);
    const tinypm = [...s.tinypm.values()].filter((i) => i.kind === kind);
    const target = [...s.target.values()].filter((i) => i.kind === kind);
    if (tinypm.length !== links.length || target.length !== links.length) {
      out.push(
        `${s.job} ${kind}: ${tinypm.length} in tinyPM, ${target.length} on the target, ${links.length} links`,
      );
    }
    const owners = new Map<string, string[]>();
    for (const item of target) {
      const m = item.marker;
      const key = m?.tinypmId ?? (m?.origin === "tinypm" ? m.originId : undefined);
      if (key === undefined) {
        out.push(`${s.job} ${kind} ${item.id} has no marker naming its tinyPM item`);
        continue;
      }
      owners.set(key, [...(owners.get(key) ?? []), item.id]);
    }
    for (const [key, ids] of owners) {
      if (ids.length > 1)
        out.push(`${s.job} ${kind}: tinyPM ${key} has ${ids.length} copies: ${ids.join(", ")}`);
    }
  }
  return out;
}

/**
 * Convergence on the mapped fields every link shares (title; a story's status): equal on both
 * sides unless an open conflict holds the field.
 */
export function convergenceProblems(s: JobSides): string[] {
  const out: string[] = [];
  for (const l of s.links) {
    const a = s.tinypm.get(`${l.kind}:${l.tinypmId}`);
    const b = s.target.get(`${l.kind}:${l.targetId}`);
    if (a === undefined || b === undefined) {
      out.push(`${s.job} ${l.kind} ${l.tinypmId} ⇄ ${l.targetId}: missing on a side`);
      continue;
    }
    const fields: Edit["field"][] = l.kind === "story" ? ["title", "status"] : ["title"];
    for (const f of fields) {
      if (openConflict(s, l.kind, l.tinypmId, f)) continue;
      if (valueOf(a, f) !== valueOf(b, f)) {
        out.push(
          `${s.job} ${l.kind} ${l.tinypmId}.${f}: tinyPM "${valueOf(a, f)}", target "${valueOf(b, f)}"`,
        );
      }
    }
  }
  return out;
}

/**
 * Lost edits: the last edit of each field of each pair is what both sides show, unless a
 * conflict was opened on that field — then the last edit made on a side is what that side shows
 * and the conflict is listed (open).
 */
export function lostEditProblems(s: JobSides, edits: readonly Edit[]): string[] {
  const out: string[] = [];
  const pairOf = (e: Edit): LinkRecord | undefined =>
    s.links.find((l) =>
      e.side === "tinypm"
        ? l.kind === e.kind && l.tinypmId === e.id
        : l.targetId === e.id || l.targetId === e.alt,
    );
  const last = new Map<string, { pair: LinkRecord; edit: Edit; perSide: Map<string, Edit> }>();
  for (const e of edits.filter((x) => x.job === s.job)) {
    const pair = pairOf(e);
    if (pair === undefined) {
      out.push(`${s.job}: the ${e.side} item ${e.id} edited by #${e.seq} is not linked`);
      continue;
    }
    const key = `${pair.kind}:${pair.tinypmId}:${e.field}`;
    const entry = last.get(key) ?? { pair, edit: e, perSide: new Map() };
    if (e.seq >= entry.edit.seq) entry.edit = e;
    entry.perSide.set(e.side, e);
    last.set(key, entry);
  }
  for (const { pair, edit, perSide } of last.values()) {
    const a = s.tinypm.get(`${pair.kind}:${pair.tinypmId}`);
    const b = s.target.get(`${pair.kind}:${pair.targetId}`);
    if (a === undefined || b === undefined) continue; // reported by convergenceProblems
    if (edit.field === "status" && pair.kind !== "story") continue;
    const what = `${s.job} ${pair.kind} ${pair.tinypmId}.${edit.field}`;
    if (openConflict(s, pair.kind, pair.tinypmId, edit.field)) {
      for (const [side, e] of perSide) {
        const shown = valueOf(side === "tinypm" ? a : b, e.field);
        if (!shown.includes(e.value))
          out.push(
            `${what}: conflict, but ${side} shows "${shown}", not its last edit "${e.value}"`,
          );
      }
      continue;
    }
    for (const [side, item] of [
      ["tinyPM", a],
      ["target", b],
    ] as const) {
      const shown = valueOf(item, edit.field);
      if (!shown.includes(edit.value))
        out.push(
          `${what}: ${side} shows "${shown}", the last edit (#${edit.seq}, ${edit.side}) was "${edit.value}"`,
        );
    }
  }
  return out;
}

/**
 * Runs of one job on two processes at once: per job, any two journalled runs of different
 * processes whose [start, end] intervals overlap (an open run lasts until now). Processes are told
 * apart by the journal's worker id (`host:pid:start`): a pid alone repeats across hosts and
 * containers, and a worker restarted under a recycled pid is another process.
 */
/** The process that journalled a run: its worker id (runs from before it was kept: host and pid). */
const processOf = (r: RunRecord): string => r.workerId ?? `${r.host ?? "?"}:${String(r.pid)}`;

export function overlappingRuns(runs: readonly RunRecord[]): string[] {
  const out: string[] = [];
  const byJob = new Map<string, RunRecord[]>();
  for (const r of runs) byJob.set(r.job, [...(byJob.get(r.job) ?? []), r]);
  const end = (r: RunRecord): number =>
    r.finishedAt === undefined ? Date.now() : Date.parse(r.finishedAt);
  for (const [job, list] of byJob) {
    const sorted = [...list].sort((x, y) => Date.parse(x.startedAt) - Date.parse(y.startedAt));
    for (let i = 0; i < sorted.length; i++) {
      const a = sorted[i]!;
      for (let k = i + 1; k < sorted.length; k++) {
        const b = sorted[k]!;
        if (Date.parse(b.startedAt) >= end(a)) break;
        if (processOf(a) !== processOf(b)) {
          out.push(
            `${job}: run ${a.id} (${processOf(a)}, ${a.startedAt}–${a.finishedAt ?? "open"}) overlaps ${b.id} (${processOf(b)}, from ${b.startedAt})`,
          );
        }
      }
    }
  }
  return out;
}

interface PlanJson {
  summary: Record<string, number>;
  items: {
    kind: string;
    tinypmId?: string;
    action: string;
    changes: { field: string; toSide: string; from: unknown; to: unknown }[];
  }[];
}

/**
 * What a single clean worker would still change from the final inputs: a `plan --format json`
 * on a fresh state (every link rebuilt from the markers) must create, delete, conflict and change
 * nothing — a value the target chose itself (Jira's default priority for an issue sent without
 * one) is in the marker's target digests, so it is not taken for an edit made on the target.
 */
export function freshPlanProblems(job: string, stdout: string): string[] {
  const plan = JSON.parse(stdout) as PlanJson;
  const out: string[] = [];
  for (const k of ["created", "conflicts", "failed", "deleted"]) {
    if ((plan.summary[k] ?? 0) > 0) out.push(`${job}: ${plan.summary[k]} ${k}`);
  }
  for (const item of plan.items) {
    if (item.action === "skip") continue;
    out.push(
      `${job}: ${item.action} ${item.kind} ${item.tinypmId ?? "?"} ${JSON.stringify(item.changes)}`,
    );
  }
  return out;
}
