import type { StatusJson } from "../library/status.js";
import { silentFor } from "../state/worker-processes.js";
import { when } from "./run-words.js";

type WorkerJson = StatusJson["workers"][number];

/**
 * The "Workers" block of `status`: one row per process working on the state — host, pid, when
 * it started, its last heartbeat, the jobs it holds, alive or dead (silent longer than the lease).
 */
export function workerTable(workers: readonly WorkerJson[]): string[] {
  if (workers.length === 0) return ["Workers: none (no process is working on the state)"];
  const head = ["host", "pid", "started", "last heartbeat", "jobs held", "state"];
  const rows = workers.map((w) => [
    w.host,
    String(w.pid),
    when(w.startedAt),
    silentFor(w.silentMs),
    w.jobs.length === 0 ? "—" : w.jobs.join(", "),
    w.alive ? "alive" : "dead",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    `  ${cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")}`.trimEnd();
  const alive = workers.filter((w) => w.alive).length;
  return [
    `Workers: ${alive} alive${alive === workers.length ? "" : `, ${workers.length - alive} dead (silent longer than the lease life)`}`,
    line(head),
    ...rows.map(line),
  ];
}
