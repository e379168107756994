import type { WorkerRecord } from "./lease.js";

/**
 * One process working on a state, as `status`, the `serve` dashboard and `/api/workers` show it.
 * A process may be several members of a PostgreSQL state at once (`serve` itself and each run it
 * has going): they are one worker here.
 */
export interface WorkerProcess {
  /** Its worker id (`processWorkerId`), as its runs name it; `host:pid` when the state lacks it. */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** When its oldest membership joined the state (ISO). */
  readonly startedAt: string;
  /** Its newest heartbeat (ISO). */
  readonly heartbeatAt: string;
  /** Milliseconds since that heartbeat, by the state's clock. */
  readonly silentMs: number;
  /** Heard from within the lease life (30 s); a dead worker holds no job. */
  readonly alive: boolean;
  /** The jobs it holds now, sorted. */
  readonly jobs: readonly string[];
}

/** The records of `workers()` grouped by process (worker id, else host and pid), oldest first. */
export function workerProcesses(records: readonly WorkerRecord[]): WorkerProcess[] {
  const byProcess = new Map<string, WorkerRecord[]>();
  for (const r of records) {
    const key = r.workerId ?? `${r.host}\u0000${String(r.pid)}`;
    byProcess.set(key, [...(byProcess.get(key) ?? []), r]);
  }
  const processes = [...byProcess.values()].map((group): WorkerProcess => {
    const newest = group.reduce((a, b) => (b.silentMs < a.silentMs ? b : a));
    const first = group.reduce((a, b) => (b.startedAt < a.startedAt ? b : a));
    const id = group.find((r) => r.workerId !== undefined)?.workerId;
    return {
      id: id ?? `${first.host}:${String(first.pid)}`,
      host: first.host,
      pid: first.pid,
      startedAt: first.startedAt,
      heartbeatAt: newest.heartbeatAt,
      silentMs: newest.silentMs,
      alive: group.some((r) => r.alive),
      jobs: [...new Set(group.flatMap((r) => r.jobs))].sort(),
    };
  });
  return processes.sort(
    (a, b) =>
      a.startedAt.localeCompare(b.startedAt) || a.host.localeCompare(b.host) || a.pid - b.pid,
  );
}

/** "now", "3 s ago", "4 min ago", "2 h ago": how long a worker has been silent. */
export function silentFor(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 1) return "now";
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}
