import type { WorkItem } from "../../core/model.js";
import { reconcileIntents } from "../apply/reconcile.js";
import type { EngineContext } from "../context.js";
import { linkView } from "../plan/links.js";
import type { LinkView } from "../plan/plan-types.js";
import type { LinkRecord } from "../../state/records.js";
import type { RunRead } from "../read/run-read.js";
import { identityStep, type IdentityStats } from "./identity-step.js";
import { importClaims } from "./import-claims.js";

/**
 * What the settle step leaves for the plan (a plain value): the links (stored, and those settling
 * stored or, in a dry run, would store), the target items with the state's copy of a missing
 * block, the items left alone, and the import claims other jobs hold.
 */
export interface Settled {
  readonly links: readonly LinkView[];
  readonly targetItems: readonly WorkItem[];
  readonly blockless?: ReadonlyMap<string, "restored" | "unknown"> | undefined;
  readonly held?: ReadonlySet<string> | undefined;
  readonly claimed?: ReadonlyMap<string, string> | undefined;
  /** What the identity step found (undefined: nothing was settled, a quiet run). */
  readonly identity?: IdentityStats | undefined;
}

/** A quiet run's settling: nothing to settle, the read as it is. */
export function unsettled(read: RunRead): Settled {
  return { links: read.links, targetItems: read.target.items };
}

/**
 * The settle step, the only state writes before apply (none in a dry run): interrupted creates
 * are found again and linked, or dropped (apply/reconcile.ts — a real run only); lost links are
 * rebuilt from markers and content (identity-step.ts); then the import claims of other jobs on
 * the unlinked target items are read.
 */
export async function settle(ctx: EngineContext, read: RunRead, dry: boolean): Promise<Settled> {
  const settled = dry
    ? undefined
    : await reconcileIntents(ctx, read.tinypm.items, read.target.items);
  // Settling linked found creates: their links join the stored ones, as written (not read back).
  const links = withSettled(read.links, settled?.links ?? []);
  const found = await identityStep({
    job: ctx.job,
    mapping: ctx.mapping,
    targetSystem: ctx.targetSystem,
    state: ctx.state,
    dry,
    runId: ctx.runId,
    tinypmItems: read.tinypm.items,
    targetItems: read.target.items,
    links,
    now: ctx.now(),
    // An import whose tinyPM copy cannot be told apart is left alone, like an ambiguous match.
    held: settled?.held,
  });
  const claimed = await importClaims({
    state: ctx.state,
    job: ctx.job,
    targetSystem: ctx.targetSystem,
    location: ctx.targetLocation,
    links: found.links,
    targetItems: found.targetItems,
  });
  return {
    links: found.links,
    targetItems: found.targetItems,
    blockless: found.blockless,
    held: found.held,
    claimed,
    identity: found.stats,
  };
}

/** The stored links with those settling just wrote (a link of the same item replaced). */
export function withSettled(
  stored: readonly LinkView[],
  written: readonly LinkRecord[],
): readonly LinkView[] {
  if (written.length === 0) return stored;
  const views = written.map(linkView);
  const key = (l: { kind: string; tinypmId: string }) => `${l.kind}:${l.tinypmId}`;
  const replaced = new Set(views.map(key));
  return [...stored.filter((l) => !replaced.has(key(l))), ...views];
}
