import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunRecord } from "../../src/state/store.js";
import type { JobSides } from "./workers-checks.js";
import type { Edit } from "./workers-edits.js";
import {
  pairKey,
  workerLogLines,
  type LinkHistory,
  type TinypmWrite,
  type WorkerLogLine,
} from "./workers-history.js";

/** `job kind id` named at the start of a problem line (`gh4 story 8004.status: …`). */
const PAIR = /^(\S+) (story|task) (\d+)/;

/** What the test recorded while it ran (workers-history.ts), for a timeline of each pair. */
export interface Trace {
  readonly tinypmWrites?: readonly TinypmWrite[] | undefined;
  readonly links?: LinkHistory | undefined;
  /** Where the workers' logs are (`worker-<pid>.log`). */
  readonly logDir?: string | undefined;
  readonly kills?: readonly { readonly pid: number; readonly at: string }[] | undefined;
  /** The target's own history of an item (GitHub issue events, Jira changelog), read at the end. */
  readonly targetEvents?: ((job: string, targetId: string) => Promise<unknown>) | undefined;
}

/**
 * The request paths of a pair's items, as the workers log them: tinyPM's story or task, the
 * GitHub issue in the job's repository (`repo<n>`), the Jira issue by key or id.
 */
export function pairPaths(
  job: string,
  kind: "story" | "task",
  tinypmId: string,
  targetId: string | undefined,
): RegExp[] {
  const end = "(?:[/?]|$)";
  const out = [new RegExp(`^/${kind === "story" ? "userstory" : "task"}/${tinypmId}${end}`)];
  if (targetId === undefined) return out;
  const escaped = targetId.replace(/[^\w-]/g, "");
  out.push(
    job.startsWith("gh")
      ? new RegExp(`/repo${job.slice(2)}/issues/${escaped}${end}`)
      : new RegExp(`/issue/${escaped}${end}`),
  );
  return out;
}

/** One moment of a pair's timeline: when, and what happened, in a line. */
interface Moment {
  readonly at: string;
  readonly what: string;
}

const short = (v: unknown): string => (v === undefined ? "undefined" : JSON.stringify(v));

/** Everything known about a pair, oldest first: edits, writes, bases, runs, kills, log lines. */
function timeline(o: {
  edits: readonly Edit[];
  writes: readonly TinypmWrite[];
  links: readonly {
    at: string;
    baseTinypm: unknown;
    baseTarget: unknown;
    pendingWrites?: unknown;
  }[];
  runs: readonly RunRecord[];
  kills: readonly { pid: number; at: string }[];
  log: readonly WorkerLogLine[];
}): string[] {
  const m: Moment[] = [
    ...o.edits.map((e) => ({
      at: e.at,
      what: `person edits ${e.side} ${e.id} #${e.seq}: ${e.field} = ${short(e.value)}`,
    })),
    ...o.writes.map((w) => ({
      at: w.at,
      what: `tinyPM store ${w.op} by ${w.by}: name ${short(w.name)}, status ${short(w.status)}, description ${short(w.description)}`,
    })),
    ...o.links.map((l) => ({
      at: l.at,
      what: `link bases now tinyPM ${short(l.baseTinypm)} target ${short(l.baseTarget)}${l.pendingWrites === undefined ? "" : ` pending ${short(l.pendingWrites)}`}`,
    })),
    ...o.runs.flatMap((r) => [
      { at: r.startedAt, what: `run ${r.id} starts on pid ${r.pid} (${r.mode})` },
      ...(r.finishedAt === undefined
        ? []
        : [{ at: r.finishedAt, what: `run ${r.id} ends on pid ${r.pid}: ${r.outcome}` }]),
    ]),
    ...o.kills.map((k) => ({ at: k.at, what: `SIGKILL pid ${k.pid}` })),
    ...o.log.map((l) => {
      const { worker, time, level: _level, job: _job, ...rest } = l;
      return { at: String(time), what: `${worker}: ${short(rest)}` };
    }),
  ];
  return m.sort((a, b) => a.at.localeCompare(b.at)).map((x) => `${x.at} ${x.what}`);
}

/**
 * What a failed chaos run leaves to trace a problem by: for each pair a problem names, its link
 * (both bases, pending writes), both items as read at the end (with the target's marker), the
 * person's edits of it in order, its job's journalled runs, and with a `trace`: the link's bases
 * as they changed, every tinyPM write of the item (person or tool), the target's own history of
 * it, the workers' log lines naming it, all merged into one timeline. Written to a file; the path
 * is returned (for the test's output). Nothing when no problem names a pair.
 */
export async function writeDiagnosis(
  problems: Readonly<Record<string, readonly string[]>>,
  sides: readonly JobSides[],
  edits: readonly Edit[],
  runs: readonly RunRecord[],
  trace: Trace = {},
): Promise<string | undefined> {
  const named = new Map<string, { job: string; kind: "story" | "task"; id: string }>();
  for (const line of Object.values(problems).flat()) {
    const m = PAIR.exec(line);
    if (m?.[1] !== undefined && m[3] !== undefined)
      named.set(`${m[1]} ${m[2]} ${m[3]}`, { job: m[1], kind: m[2] as "story" | "task", id: m[3] });
  }
  if (named.size === 0) return undefined;
  const pairs = [];
  for (const { job, kind, id } of named.values()) {
    const s = sides.find((x) => x.job === job);
    const link = s?.links.find((l) => l.kind === kind && l.tinypmId === id);
    const targetId = link?.targetId;
    const pairEdits = edits.filter(
      (e) =>
        e.job === job &&
        (e.side === "tinypm"
          ? e.id === id && (e.kind ?? kind) === kind
          : e.id === targetId || e.alt === targetId),
    );
    const jobRuns = runs.filter((r) => r.job === job);
    const writes = (trace.tinypmWrites ?? []).filter((w) => w.kind === kind && w.id === id);
    const links = trace.links?.get(pairKey(job, kind, id)) ?? [];
    const log =
      trace.logDir === undefined
        ? []
        : workerLogLines(
            trace.logDir,
            job,
            targetId === undefined ? [id] : [id, targetId],
            pairPaths(job, kind, id, targetId),
          );
    const targetEvents =
      targetId === undefined || trace.targetEvents === undefined
        ? undefined
        : await trace.targetEvents(job, targetId).catch((e: unknown) => String(e));
    pairs.push({
      job,
      kind,
      tinypmId: id,
      link,
      tinypm: s?.tinypm.get(`${kind}:${id}`),
      target: targetId === undefined ? undefined : s?.target.get(`${kind}:${targetId}`),
      edits: pairEdits,
      targetEvents,
      timeline: timeline({
        edits: pairEdits,
        writes,
        links,
        runs: jobRuns,
        kills: trace.kills ?? [],
        log,
      }),
      runs: jobRuns,
    });
  }
  const file = join(mkdtempSync(join(tmpdir(), "tps-chaos-diagnosis-")), "diagnosis.json");
  writeFileSync(
    file,
    JSON.stringify({ problems, logDir: trace.logDir, kills: trace.kills, pairs }, null, 2),
  );
  return file;
}
