import { z } from "zod";
import type { PlanAction } from "../plan/plan-types.js";
import { plannedOutcome } from "../outcome.js";
import { digestOf, itemDigests } from "./digest.js";

const Digests = z.record(z.string(), z.string());

/**
 * One action of a saved plan: what it does to which item, and the digests of what it read that
 * it depends on — the items on both sides (part by part, so that a change can be named), the
 * link's base — and of what it would write.
 */
export const SavedAction = z.object({
  /** The action's identity: its type, side, kind and the ids it acts on. */
  key: z.string(),
  type: z.enum(["create", "update", "adopt", "delete"]),
  kind: z.string(),
  title: z.string(),
  /** The side it writes: `tinypm`, `target`, or `both` (an update may write both). */
  writes: z.enum(["tinypm", "target", "both"]),
  tinypmId: z.string().optional(),
  targetId: z.string().optional(),
  /** Fields it changes (updates), for people reviewing the plan. */
  fields: z.array(z.string()).optional(),
  reads: z.object({
    tinypm: Digests.optional(),
    target: Digests.optional(),
    base: z.string().optional(),
  }),
  /** The digest of everything it would write. */
  effect: z.string(),
});
export type SavedAction = z.infer<typeof SavedAction>;

/** Whether an action belongs in a saved plan: it writes something (skips and base moves do not). */
export function isPlannedWrite(
  action: PlanAction,
): action is Exclude<PlanAction, { type: "skip" }> {
  return action.type !== "skip" && plannedOutcome(action) !== "unchanged";
}

/** The identity of an action: the same item, side and kind of change in two plans. */
export function savedActionKey(action: Exclude<PlanAction, { type: "skip" }>): string {
  switch (action.type) {
    case "create":
      return `create:${action.toSide}:${action.kind}:${action.source.id}`;
    case "update":
      return `update:${action.kind}:${action.link.tinypmId}`;
    case "adopt":
      return `adopt:${action.kind}:${action.tinypmItem.id}:${action.targetItem.id}`;
    case "delete":
      return `delete:${action.side}:${action.kind}:${action.link.tinypmId}`;
  }
}

/** An action as a saved plan holds it. */
export function savedAction(action: Exclude<PlanAction, { type: "skip" }>): SavedAction {
  const common = { key: savedActionKey(action), kind: action.kind, title: action.title };
  switch (action.type) {
    case "create": {
      const source = itemDigests(action.source);
      const fromTinypm = action.toSide === "target";
      return {
        ...common,
        type: "create",
        writes: action.toSide,
        ...(fromTinypm ? { tinypmId: action.source.id } : { targetId: action.source.id }),
        reads: fromTinypm ? { tinypm: source } : { target: source },
        effect: digestOf({
          draft: action.draft,
          parent: action.parentSourceId,
          comments: action.comments,
          time: action.timeEntries,
        }),
      };
    }
    case "update": {
      const toTinypm = hasKeys(action.tinypmSet) || action.commentsToTinypm.length > 0;
      const toTarget =
        hasKeys(action.targetSet) ||
        action.targetMetadata !== undefined ||
        action.targetMarker !== undefined ||
        action.commentsToTarget.length > 0 ||
        action.timeToTarget.length > 0;
      return {
        ...common,
        type: "update",
        writes: toTinypm && toTarget ? "both" : toTinypm ? "tinypm" : "target",
        tinypmId: action.link.tinypmId,
        targetId: action.link.targetId,
        fields: [...new Set(action.changes.map((c) => `${c.field} → ${c.toSide}`))],
        reads: {
          tinypm: itemDigests(action.tinypmItem),
          target: itemDigests(action.targetItem),
          base: digestOf({ tinypm: action.link.baseTinypm, target: action.link.baseTarget }),
        },
        effect: digestOf({
          tinypmSet: action.tinypmSet,
          targetSet: action.targetSet,
          targetMetadata: action.targetMetadata,
          targetMarker: action.targetMarker,
          targetRichDescription: action.targetRichDescription,
          commentsToTarget: action.commentsToTarget,
          commentsToTinypm: action.commentsToTinypm,
          timeToTarget: action.timeToTarget,
          timeToTinypm: action.timeToTinypm,
          keptOnTarget: action.keptOnTarget,
          timeKeptOnTarget: action.timeKeptOnTarget,
          conflicts: action.conflicts,
        }),
      };
    }
    case "adopt":
      return {
        ...common,
        type: "adopt",
        writes: "target",
        tinypmId: action.tinypmItem.id,
        targetId: action.targetItem.id,
        reads: {
          tinypm: itemDigests(action.tinypmItem),
          target: itemDigests(action.targetItem),
        },
        effect: digestOf({ adopt: true }),
      };
    case "delete":
      return {
        ...common,
        type: "delete",
        writes: action.side,
        tinypmId: action.link.tinypmId,
        targetId: action.link.targetId,
        reads: {
          base: digestOf({ tinypm: action.link.baseTinypm, target: action.link.baseTarget }),
        },
        effect: digestOf({
          side: action.side,
          mode: action.mode,
          set: action.set,
          comment: action.comment,
        }),
      };
  }
}

function hasKeys(o: object): boolean {
  return Object.keys(o).length > 0;
}
