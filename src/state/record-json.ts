import { z } from "zod";
import type { ConflictRecord, RunRecord } from "./records.js";

/**
 * The parts of the state's records that `status --json` (src/library/status.ts) and the serve API
 * (src/serve/api-routes.ts) both show, as zod shapes to spread into their objects and as the
 * plain values to spread into their answers. Each caller keeps its own keys around them.
 */

const count = z.number().int().min(0);

/** A run's process: pid, host and worker id. `workerIdNote` describes the worker id. */
export function runProcessShape(workerIdNote: string) {
  return {
    pid: z.number().int().describe("The process that ran it."),
    host: z
      .string()
      .nullable()
      .describe("The host it ran on (null: journalled before it was kept)."),
    workerId: z.string().nullable().describe(workerIdNote),
  };
}

/** The values of `runProcessShape` for one run. */
export function runProcessJson(r: RunRecord): {
  pid: number;
  host: string | null;
  workerId: string | null;
} {
  return { pid: r.pid, host: r.host ?? null, workerId: r.workerId ?? null };
}

/** A process working on the state (state/worker-processes.ts), as docs/state.md, Workers, shows it. */
export const workerProcessShape = {
  id: z.string().describe("The worker's id, as the runs it journals name it (workerId)."),
  host: z.string(),
  pid: z.number().int(),
  startedAt: z.string(),
  heartbeatAt: z.string().describe("Its last heartbeat (SQLite: the moment of reading)."),
  silentMs: count.describe("Milliseconds since that heartbeat, by the state's clock."),
  alive: z
    .boolean()
    .describe("Heard from within the lease life (30 s); a dead worker holds no job."),
  jobs: z.array(z.string()).describe("The jobs it holds now."),
};

/** A conflict's item, field and values (its id and job stay with the caller); `value` types the values. */
export function conflictFieldsShape(value: z.ZodType) {
  return {
    kind: z.enum(["story", "task"]),
    tinypmId: z.string(),
    targetId: z.string(),
    field: z.string(),
    baseValue: value,
    tinypmValue: value,
    targetValue: value,
    createdAt: z.string(),
  };
}

/** The values of `conflictFieldsShape` for one conflict. */
export function conflictFieldsJson(
  c: ConflictRecord,
): Pick<
  ConflictRecord,
  | "kind"
  | "tinypmId"
  | "targetId"
  | "field"
  | "baseValue"
  | "tinypmValue"
  | "targetValue"
  | "createdAt"
> {
  return {
    kind: c.kind,
    tinypmId: c.tinypmId,
    targetId: c.targetId,
    field: c.field,
    baseValue: c.baseValue,
    tinypmValue: c.tinypmValue,
    targetValue: c.targetValue,
    createdAt: c.createdAt,
  };
}
