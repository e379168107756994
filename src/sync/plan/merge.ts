import type { JsonValue, WorkItemFieldName } from "../../core/model.js";
import type { ParkedUnit } from "../../mapping/description.js";
import { shownBase } from "./unknown-base.js";
import { sameJson, type Snapshot } from "./snapshot.js";

export type Direction = "to-target" | "to-tinypm" | "both";
export type ConflictPolicy = "manual" | "tinypm" | "target" | "newest";
export type Side = "tinypm" | "target";

/** A field changed on both sides to different values. */
export interface FieldConflict {
  readonly field: WorkItemFieldName;
  readonly base: JsonValue | undefined;
  readonly tinypm: JsonValue | undefined;
  readonly target: JsonValue | undefined;
  /** `parked` under the manual policy (nothing written for this field), else the side that won. */
  readonly resolution: "parked" | Side;
  /**
   * A description written but for these units (`richText: merge`): their rich content cannot be
   * placed. The values then name the units: `{ "block 2, row 3, cell 2": text }`.
   */
  readonly units?: readonly ParkedUnit[] | undefined;
}

export interface MergeInput {
  readonly fieldNames: readonly WorkItemFieldName[];
  /** Both sides now, in tinyPM terms. */
  readonly tinypm: Snapshot;
  readonly target: Snapshot;
  /** Both sides as last synced. */
  readonly baseTinypm: Snapshot;
  readonly baseTarget: Snapshot;
  readonly direction: Direction;
  readonly policy: ConflictPolicy;
  /** Per-field decisions taken with `conflicts resolve`. */
  readonly resolved?: Readonly<Partial<Record<WorkItemFieldName, Side>>> | undefined;
  /** Which side changed last, for the `newest` policy. */
  readonly newest?: Side | undefined;
  /**
   * A one-way run to the target (`migrate`) of a job that syncs both ways: pairs merge as a sync
   * would (conflicts by the policy), but nothing is written to tinyPM; what would flow there is
   * kept on the target (`keptOnTarget`) with its base, so that a later `sync` still carries it.
   */
  readonly keepTargetEdits?: boolean | undefined;
}

export interface MergeResult {
  /** Fields whose tinyPM value is written to the target. */
  readonly toTarget: readonly WorkItemFieldName[];
  /** Fields whose target value is written to tinyPM. */
  readonly toTinypm: readonly WorkItemFieldName[];
  readonly conflicts: readonly FieldConflict[];
  readonly commentsToTarget: readonly string[];
  readonly commentsToTinypm: readonly string[];
  readonly timeToTarget: readonly string[];
  readonly timeToTinypm: readonly string[];
  /**
   * With `keepTargetEdits`: fields a person changed on the target (or that won a conflict there)
   * that the run leaves as they are, their base kept so that a later sync carries them to tinyPM.
   */
  readonly keptOnTarget?: readonly WorkItemFieldName[] | undefined;
  /** The same for time entries (keys) the target gained. */
  readonly timeKeptOnTarget?: readonly string[] | undefined;
}

/**
 * The three-way merge of one linked pair, field by field (pure). A field changed on one side
 * only flows to the other; changed on both to different values it is a conflict, decided by
 * the policy; a field whose sides already agree is never written. Comments and time entries
 * merge as sets: what one side gained since the base is copied, what one side lost is not
 * brought back.
 */
export function mergePair(input: MergeInput): MergeResult {
  if (input.keepTargetEdits === true && input.direction === "to-target") {
    const both = mergePair({ ...input, direction: "both", keepTargetEdits: false });
    return {
      ...both,
      toTinypm: [],
      commentsToTinypm: [],
      timeToTinypm: [],
      keptOnTarget: both.toTinypm,
      timeKeptOnTarget: both.timeToTinypm,
    };
  }
  const toTarget: WorkItemFieldName[] = [];
  const toTinypm: WorkItemFieldName[] = [];
  const conflicts: FieldConflict[] = [];
  const canTarget = input.direction !== "to-tinypm";
  const canTinypm = input.direction !== "to-target";
  for (const field of input.fieldNames) {
    const t = input.tinypm.fields[field];
    const g = input.target.fields[field];
    if (sameJson(t, g)) continue;
    const tChanged = !sameJson(t, input.baseTinypm.fields[field]);
    const gChanged = !sameJson(g, input.baseTarget.fields[field]);
    if (tChanged && !gChanged) {
      if (canTarget) toTarget.push(field);
    } else if (gChanged && !tChanged) {
      if (canTinypm) toTinypm.push(field);
    } else if (tChanged && gChanged) {
      const winner = decide(input, field);
      conflicts.push({
        field,
        base: shownBase(input.baseTinypm.fields[field]),
        tinypm: t,
        target: g,
        resolution: winner ?? "parked",
      });
      if (winner === "tinypm") toTarget.push(field);
      if (winner === "target") toTinypm.push(field);
    }
  }
  const comments = mergeKeys(
    input.tinypm.comments,
    input.target.comments,
    input.baseTinypm.comments,
    input.baseTarget.comments,
  );
  const time = mergeTime(input);
  return {
    toTarget,
    toTinypm,
    conflicts,
    commentsToTarget: canTarget ? comments.toTarget : [],
    commentsToTinypm: canTinypm ? comments.toTinypm : [],
    timeToTarget: canTarget ? time.toTarget : [],
    timeToTinypm: canTinypm ? time.toTinypm : [],
  };
}

function decide(input: MergeInput, field: WorkItemFieldName): Side | undefined {
  if (input.direction === "to-target") return "tinypm";
  if (input.direction === "to-tinypm") return "target";
  const resolved = input.resolved?.[field];
  if (resolved !== undefined) return resolved;
  switch (input.policy) {
    case "manual":
      return undefined;
    case "tinypm":
    case "target":
      return input.policy;
    case "newest":
      return input.newest ?? "tinypm";
  }
}

function mergeKeys(
  t: readonly string[],
  g: readonly string[],
  bt: readonly string[],
  bg: readonly string[],
): { toTarget: string[]; toTinypm: string[] } {
  const gs = new Set(g);
  const ts = new Set(t);
  const bgs = new Set(bg);
  const bts = new Set(bt);
  return {
    toTarget: t.filter((k) => !gs.has(k) && !bgs.has(k)),
    toTinypm: g.filter((k) => !ts.has(k) && !bts.has(k)),
  };
}

function mergeTime(input: MergeInput): { toTarget: string[]; toTinypm: string[] } {
  const t = input.tinypm.timeEntries;
  const g = input.target.timeEntries;
  const toTarget: string[] = [];
  const toTinypm: string[] = [];
  for (const key of new Set([...Object.keys(t), ...Object.keys(g)])) {
    const tv = t[key];
    const gv = g[key];
    if (tv === gv) continue;
    const tChanged = tv !== input.baseTinypm.timeEntries[key];
    const gChanged = gv !== input.baseTarget.timeEntries[key];
    // A side that lost an entry does not delete it on the other side (time is never destroyed).
    const winner: Side | undefined =
      tChanged && !gChanged
        ? "tinypm"
        : gChanged && !tChanged
          ? "target"
          : tChanged
            ? bothChanged(input.direction)
            : undefined;
    if (winner === "tinypm" && tv !== undefined) toTarget.push(key);
    if (winner === "target" && gv !== undefined) toTinypm.push(key);
  }
  return { toTarget, toTinypm };
}

function bothChanged(direction: Direction): Side {
  return direction === "to-tinypm" ? "target" : "tinypm";
}
