import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReferenceStore } from "../../src/reference-server/store.js";
import type { StateStore } from "../../src/state/store.js";
import type { WorkersWorld } from "./workers-world.js";

/**
 * What the chaos test records while it runs, so that a lost edit can be placed on a timeline
 * afterwards (workers-diagnose.ts): every write to the tinyPM store with who made it, and every
 * change of every link's bases as the shared state holds them.
 */

/** One write to the reference tinyPM's store: by the person (the editor) or the tool (its API). */
export interface TinypmWrite {
  readonly at: string;
  readonly by: "person" | "tool";
  readonly op: string;
  readonly kind: "story" | "task";
  readonly id: string;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  /** A story's acceptance status, a task's status id. */
  readonly status?: string | undefined;
}

interface Written {
  readonly id: number;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly acceptanceStatus?: string | undefined;
  readonly statusId?: number | undefined;
}

/**
 * Records every story and task write of `store` (instrumentation: each write method is wrapped
 * and behaves as before). `person` runs the editor's writes, so the ones made outside it are the
 * tool's (through the server's API); the store is synchronous, so the attribution is exact.
 */
export function recordTinypmWrites(store: ReferenceStore): {
  readonly writes: TinypmWrite[];
  readonly person: <T>(write: () => T) => T;
} {
  const writes: TinypmWrite[] = [];
  let by: TinypmWrite["by"] = "tool";
  const note = (op: string, kind: "story" | "task", r: Written): void => {
    writes.push({
      at: new Date().toISOString(),
      by,
      op,
      kind,
      id: String(r.id),
      name: r.name,
      description: r.description,
      status: kind === "story" ? r.acceptanceStatus : String(r.statusId),
    });
  };
  const methods = ["createStory", "replaceStory", "createTask", "replaceTask"] as const;
  const target = store as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of methods) {
    const original = target[name];
    if (original === undefined) throw new Error(`the reference store has no ${name}`);
    target[name] = (...args: unknown[]): unknown => {
      const made = original.apply(store, args) as Written;
      note(name, name.endsWith("Story") ? "story" : "task", made);
      return made;
    };
  }
  const person = <T>(write: () => T): T => {
    by = "person";
    try {
      return write();
    } finally {
      by = "tool";
    }
  };
  return { writes, person };
}

/** One state of a link, from when it was first seen so. */
export interface LinkSample {
  readonly at: string;
  readonly targetId: string;
  readonly baseTinypm: unknown;
  readonly baseTarget: unknown;
  readonly pendingWrites?: unknown;
  readonly updatedAt: string;
}

/** `job kind tinypmId` → the link's states in order. */
export type LinkHistory = ReadonlyMap<string, readonly LinkSample[]>;

/** A stored base snapshot's fields (the whole value when it has none). */
const fieldsOf = (snapshot: unknown): unknown =>
  snapshot !== null && typeof snapshot === "object" && "fields" in snapshot
    ? snapshot.fields
    : snapshot;

export const pairKey = (job: string, kind: string, tinypmId: string): string =>
  `${job} ${kind} ${tinypmId}`;

/**
 * Samples the links of `jobs` every `everyMs` (read-only) and keeps each link's states where
 * they changed. A sample that fails (the database busy) is skipped. `stop` ends it.
 */
export function recordLinkHistory(
  state: StateStore,
  jobs: readonly string[],
  everyMs = 500,
): { readonly history: LinkHistory; stop(): Promise<void> } {
  const history = new Map<string, LinkSample[]>();
  const last = new Map<string, string>();
  const run = { on: true };
  const sample = async (): Promise<void> => {
    for (const job of jobs) {
      for await (const l of state.links(job)) {
        const key = pairKey(job, l.kind, l.tinypmId);
        const s = {
          targetId: l.targetId,
          baseTinypm: fieldsOf(l.base.tinypm),
          baseTarget: fieldsOf(l.base.target),
          pendingWrites: l.pendingWrites,
          updatedAt: l.updatedAt,
        };
        const text = JSON.stringify(s);
        if (last.get(key) === text) continue;
        last.set(key, text);
        history.set(key, [...(history.get(key) ?? []), { at: new Date().toISOString(), ...s }]);
      }
    }
  };
  const loop = (async () => {
    while (run.on) {
      await sample().catch(() => undefined);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    history,
    async stop() {
      run.on = false;
      await loop;
      await sample().catch(() => undefined);
    },
  };
}

/** One line of a worker's JSON log. */
export interface WorkerLogLine {
  readonly worker: string;
  readonly time?: string | undefined;
  readonly [field: string]: unknown;
}

/**
 * The lines of the workers' logs (`worker-<pid>.log` in `dir`, and the final syncs'
 * `sync-all-<n>.log`, JSON lines) of `job` that name one of `ids` (tinyPM or target id, in any
 * of the fields the per-item events carry), plus each run's phase lines of the job, so the order
 * of a run's steps shows, and the HTTP lines (which carry no job) whose path matches `paths`.
 */
export function workerLogLines(
  dir: string,
  job: string,
  ids: readonly string[],
  paths: readonly RegExp[] = [],
): WorkerLogLine[] {
  if (!existsSync(dir)) return [];
  const out: WorkerLogLine[] = [];
  const named = new Set(ids);
  for (const file of readdirSync(dir).filter((f) => /^(worker|sync)-[\w-]+\.log$/.test(f))) {
    for (const text of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (!text.startsWith("{")) continue;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      const path = line.path;
      if (typeof path === "string" && paths.some((p) => p.test(path))) {
        out.push({ worker: file.slice(0, -4), ...line });
        continue;
      }
      if (line.job !== job) continue;
      const names = ["id", "sourceId", "tinypmId", "targetId"].some(
        (k) => typeof line[k] === "string" && named.has(line[k]),
      );
      if (names || line.phase !== undefined || (line.level as number) >= 40)
        out.push({ worker: file.slice(0, -4), ...line });
    }
  }
  return out.sort((a, b) => String(a.time).localeCompare(String(b.time)));
}

/**
 * The target's own history of one item of `job`, read once at the end: a GitHub issue's events
 * (closes, reopens, renames, with their times), a Jira issue's changelog.
 */
export async function targetEvents(
  world: Pick<WorkersWorld, "github" | "jira">,
  job: string,
  targetId: string,
): Promise<unknown> {
  const n = Number(job.slice(2));
  const g = job.startsWith("gh") ? world.github[n - 1] : undefined;
  const j = job.startsWith("jr") ? world.jira[n - 1] : undefined;
  const [url, headers] =
    g !== undefined
      ? [
          `${g.url}/repos/${g.owner}/${g.repo}/issues/${targetId}/events?per_page=100`,
          { authorization: `Bearer ${g.token}`, accept: "application/vnd.github+json" },
        ]
      : j !== undefined
        ? [
            `${j.url}/rest/api/3/issue/${targetId}/changelog?maxResults=100`,
            {
              authorization: `Basic ${Buffer.from(`${j.email}:${j.token}`).toString("base64")}`,
            },
          ]
        : [undefined, {}];
  if (url === undefined) return undefined;
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  return res.ok ? res.json() : `${res.status} ${await res.text()}`;
}
