import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunRecord } from "../../src/state/store.js";
import type { JobSides } from "./workers-checks.js";
import type { Edit } from "./workers-edits.js";

/** `job kind id` named at the start of a problem line (`gh4 story 8004.status: …`). */
const PAIR = /^(\S+) (story|task) (\d+)/;

/**
 * What a failed chaos run leaves to trace a problem by: for each pair a problem names, its link
 * (both bases, pending writes), both items as read at the end (with the target's marker), the
 * person's edits of it in order, and its job's journalled runs. Written to a file; the path is
 * returned (for the test's output). Nothing when no problem names a pair.
 */
export function writeDiagnosis(
  problems: Readonly<Record<string, readonly string[]>>,
  sides: readonly JobSides[],
  edits: readonly Edit[],
  runs: readonly RunRecord[],
): string | undefined {
  const named = new Map<string, { job: string; kind: "story" | "task"; id: string }>();
  for (const line of Object.values(problems).flat()) {
    const m = PAIR.exec(line);
    if (m?.[1] !== undefined && m[3] !== undefined)
      named.set(`${m[1]} ${m[2]} ${m[3]}`, { job: m[1], kind: m[2] as "story" | "task", id: m[3] });
  }
  if (named.size === 0) return undefined;
  const pairs = [...named.values()].map(({ job, kind, id }) => {
    const s = sides.find((x) => x.job === job);
    const link = s?.links.find((l) => l.kind === kind && l.tinypmId === id);
    const targetId = link?.targetId;
    return {
      job,
      kind,
      tinypmId: id,
      link,
      tinypm: s?.tinypm.get(`${kind}:${id}`),
      target: targetId === undefined ? undefined : s?.target.get(`${kind}:${targetId}`),
      edits: edits.filter(
        (e) =>
          e.job === job &&
          (e.side === "tinypm"
            ? e.id === id && (e.kind ?? kind) === kind
            : e.id === targetId || e.alt === targetId),
      ),
      runs: runs.filter((r) => r.job === job),
    };
  });
  const file = join(mkdtempSync(join(tmpdir(), "tps-chaos-diagnosis-")), "diagnosis.json");
  writeFileSync(file, JSON.stringify({ problems, pairs }, null, 2));
  return file;
}
