import type { Checkpoint, ScanSection } from "../../core/tracker.js";

/** The state key under which a job's tinyPM tier record lives (next to the target's checkpoint). */
export const TIERS_STATE_KEY = "tinypm-tiers";

/** @default 12 (config `tinypm.fullScanEvery`) */
export const DEFAULT_FULL_SCAN_EVERY = 12;

/** What is remembered between runs: runs since the last complete read, closed sections' lists. */
export interface TierState {
  /** Runs since the last complete read of tinyPM (0 right after one). */
  readonly runsSinceFull: number;
  /** Each closed section's story-list signature when it was last read in full, by section key. */
  readonly signatures: Readonly<Record<string, string>>;
  /**
   * A run `undo` took back since the last complete read (its id): the tinyPM items it had copied
   * lost their links, closed iterations' too, so the next run reads everything to see them.
   */
  readonly undone?: string | undefined;
}

/** Why a section was read this run, or `skipped`. */
export type SectionReason = "open" | "full" | "changed" | "new" | "skipped";

/** Why this run reads everything, if it does. */
export type FullReason =
  | "forced"
  | "first"
  | "due"
  | "migration"
  | "all-changed"
  | "no-tiers"
  | "pending"
  | "repair"
  | "unlinked"
  | "undone";

export interface TierDecision {
  /** Every section is read: deletions may be inferred. */
  readonly complete: boolean;
  readonly fullReason?: FullReason | undefined;
  readonly read: readonly string[];
  readonly reasons: Readonly<Record<string, SectionReason>>;
}

/** The stored record → TierState; anything unreadable counts as no record (a full read). */
export function decodeTierState(cp: Checkpoint | undefined): TierState | undefined {
  if (cp === undefined) return undefined;
  const runs = cp.runsSinceFull;
  if (typeof runs !== "number" || !Number.isInteger(runs) || runs < 0) return undefined;
  const signatures: Record<string, string> = {};
  for (const [k, v] of Object.entries(cp)) {
    if (k.startsWith("closed:") && typeof v === "string") signatures[k] = v;
  }
  const undone = typeof cp.undone === "string" ? cp.undone : undefined;
  return { runsSinceFull: runs, signatures, ...(undone !== undefined && { undone }) };
}

/** TierState → the flat record the state store keeps. */
export function encodeTierState(s: TierState): Checkpoint {
  return {
    runsSinceFull: s.runsSinceFull,
    ...s.signatures,
    ...(s.undone !== undefined && { undone: s.undone }),
  };
}

/** The record once `undo` took back run `runId`'s creates: the next run reads everything. */
export function undoneTierState(stored: TierState | undefined, runId: string): TierState {
  return {
    runsSinceFull: stored?.runsSinceFull ?? 0,
    signatures: stored?.signatures ?? {},
    undone: runId,
  };
}

/**
 * Decides which sections to read (pure): everything when forced, on the first run, when the
 * last complete read is `fullScanEvery` runs old, or when tinyPM offers no tiers; otherwise the
 * open section and each closed one whose story list differs from its last full read.
 */
export function decideTiers(o: {
  sections: readonly ScanSection[];
  stored: TierState | undefined;
  fullScanEvery: number;
  force?: FullReason | undefined;
}): TierDecision {
  const all = o.sections.map((s) => s.key);
  const full = (fullReason: FullReason): TierDecision => ({
    complete: true,
    fullReason,
    read: all,
    reasons: Object.fromEntries(o.sections.map((s) => [s.key, s.closed ? "full" : "open"])),
  });
  if (o.force !== undefined) return full(o.force);
  if (o.stored === undefined) return full("first");
  if (o.stored.undone !== undefined) return full("undone");
  if (o.stored.runsSinceFull + 1 >= o.fullScanEvery) return full("due");
  if (!o.sections.some((s) => s.closed)) return full("no-tiers");
  const reasons: Record<string, SectionReason> = {};
  for (const s of o.sections) {
    const before = o.stored.signatures[s.key];
    reasons[s.key] = !s.closed
      ? "open"
      : before === undefined
        ? "new"
        : before !== s.signature
          ? "changed"
          : "skipped";
  }
  const read = all.filter((k) => reasons[k] !== "skipped");
  if (read.length === all.length) return { ...full("all-changed"), reasons };
  return { complete: false, read, reasons };
}

/** The record after a run that read `decision`'s sections (stored once the run is applied). */
export function nextTierState(
  sections: readonly ScanSection[],
  stored: TierState | undefined,
  decision: TierDecision,
): TierState {
  const read = new Set(decision.read);
  const signatures: Record<string, string> = {};
  for (const s of sections) {
    if (!s.closed) continue;
    const kept = read.has(s.key) ? s.signature : stored?.signatures[s.key];
    if (kept !== undefined) signatures[s.key] = kept;
  }
  return {
    runsSinceFull: decision.complete ? 0 : (stored?.runsSinceFull ?? 0) + 1,
    signatures,
    // Until a complete read has seen what the undo unlinked.
    ...(!decision.complete && stored?.undone !== undefined && { undone: stored.undone }),
  };
}
