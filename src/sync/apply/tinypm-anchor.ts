import type { WorkItem, WorkItemDraft, WorkItemFieldName } from "../../core/model.js";
import { hexHash } from "../../core/short-hash.js";

/**
 * What identifies a tinyPM copy after a crash between its create and its link, without a marker:
 * tinyPM has no hidden field, and a line in the description is what people read. Recorded with
 * the create's intent, before the call:
 * - `floor`: the highest id of that kind the run had seen. tinyPM ids only grow, so the copy's id
 *   is above it; anything at or below it existed before the create and is never a candidate.
 * - `title`, `description`: digests of what the create sent. A person rarely changes both before
 *   the next run: either one still equal names the copy.
 */
export interface TinypmAnchor {
  readonly floor: number | undefined;
  readonly title: string;
  /** Undefined for an empty description: "both empty" says nothing about which item it is. */
  readonly description: string | undefined;
}

/** Digest of a text as a person sees it: whitespace runs and the ends do not count. */
function digest(text: string): string {
  const shown = text.replace(/\s+/g, " ").trim();
  return hexHash("sha256", shown, 16);
}

/** The highest numeric id of each kind among `items` (ids that are not numbers are ignored). */
export function tinypmFloors(
  items: readonly WorkItem[],
  /** Items read but not kept, as `kind:id` (read.ts `inStep`). */
  inStep: Iterable<string> = [],
): ReadonlyMap<WorkItem["kind"], number> {
  const floors = new Map<WorkItem["kind"], number>();
  const floor = (kind: WorkItem["kind"], text: string): void => {
    const id = Number(text);
    if (Number.isSafeInteger(id) && id > (floors.get(kind) ?? -1)) floors.set(kind, id);
  };
  for (const i of items) floor(i.kind, i.id);
  for (const k of inStep) {
    const at = k.indexOf(":");
    floor(k.slice(0, at) as WorkItem["kind"], k.slice(at + 1));
  }
  return floors;
}

/** The anchor of a tinyPM create's draft, as stored text. */
export function anchorOf(draft: WorkItemDraft, floor: number | undefined): string {
  const description = (draft.description ?? "").trim();
  const anchor: TinypmAnchor = {
    floor,
    title: digest(draft.title),
    description: description === "" ? undefined : digest(description),
  };
  return JSON.stringify(anchor);
}

/** The stored anchor, or undefined for an intent recorded before anchors (or unreadable). */
export function readAnchor(text: string | undefined): TinypmAnchor | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as Partial<TinypmAnchor>;
    if (typeof v.title !== "string") return undefined;
    return {
      floor: typeof v.floor === "number" ? v.floor : undefined,
      title: v.title,
      description: typeof v.description === "string" ? v.description : undefined,
    };
  } catch {
    return undefined;
  }
}

/** How many of the anchor's digests `item` still holds (0: not this create's copy). */
export function anchorScore(anchor: TinypmAnchor, item: WorkItem): number {
  if (anchor.floor !== undefined && !(Number(item.id) > anchor.floor)) return 0;
  const description = (item.description ?? "").trim();
  return (
    (digest(item.title) === anchor.title ? 1 : 0) +
    (anchor.description !== undefined &&
    description !== "" &&
    digest(description) === anchor.description
      ? 1
      : 0)
  );
}

/** The fields `item` still holds as the anchored create sent them (title, description). */
export function anchorKept(anchor: TinypmAnchor, item: WorkItem): Set<WorkItemFieldName> {
  const kept = new Set<WorkItemFieldName>();
  if (digest(item.title) === anchor.title) kept.add("title");
  const description = (item.description ?? "").trim();
  if (
    anchor.description === undefined
      ? description === ""
      : description !== "" && digest(description) === anchor.description
  )
    kept.add("description");
  return kept;
}

/** An intent and a candidate, with how many of the anchor's digests the candidate holds. */
interface Pair {
  readonly intent: number;
  readonly item: WorkItem;
  readonly score: number;
}

/** One interrupted tinyPM create to settle: its intent id and anchor. */
export interface AnchoredIntent {
  readonly intentId: number;
  readonly anchor: TinypmAnchor;
}

/** What `pairAnchors` decided for an intent. */
export type AnchorVerdict =
  | { readonly found: WorkItem }
  | { readonly ambiguous: readonly WorkItem[] }
  | { readonly none: true };

/**
 * Pairs interrupted creates with their copies among the unlinked candidates (pure). Pairs are
 * taken best first: a pair is taken when, at its score, it is the only one of its intent and the
 * only one of its candidate, so a copy that kept title and description goes to its own create
 * before a sibling with the same title can claim it, and a renamed copy (description kept) goes
 * to its create once its sibling took the other. What is left with several candidates is
 * ambiguous: never guessed. An intent with no candidate has no copy (its create never landed).
 */
export function pairAnchors(
  intents: readonly AnchoredIntent[],
  candidates: readonly WorkItem[],
): ReadonlyMap<number, AnchorVerdict> {
  let pairs: Pair[] = intents.flatMap((intent) =>
    candidates
      .map((item) => ({ intent: intent.intentId, item, score: anchorScore(intent.anchor, item) }))
      .filter((p) => p.score > 0),
  );
  const verdicts = new Map<number, AnchorVerdict>();
  const unique = (p: Pair, level: number): boolean =>
    pairs.filter((q) => q.intent === p.intent && q.score >= level).length === 1 &&
    pairs.filter((q) => q.item.id === p.item.id && q.score >= level).length === 1;
  for (let level = 2; level >= 1;) {
    const taken = pairs.filter((p) => p.score === level && unique(p, level));
    if (taken.length === 0) {
      level--;
      continue;
    }
    for (const p of taken) verdicts.set(p.intent, { found: p.item });
    pairs = pairs.filter(
      (q) => !taken.some((p) => p.intent === q.intent || p.item.id === q.item.id),
    );
    level = 2;
  }
  for (const intent of intents) {
    if (verdicts.has(intent.intentId)) continue;
    const left = pairs.filter((p) => p.intent === intent.intentId).map((p) => p.item);
    verdicts.set(intent.intentId, left.length === 0 ? { none: true } : { ambiguous: left });
  }
  return verdicts;
}
