import type { ItemKind } from "../core/model.js";
import { call, type EngineContext } from "./context.js";
import type { LinkView, Plan, UpdateAction } from "./plan/plan-types.js";
import { sameJson, targetSnapshot } from "./plan/snapshot.js";
import { EDITED_BOTH_BASE } from "./plan/unknown-base.js";

const key = (kind: ItemKind, tinypmId: string): string => `${kind}:${tinypmId}`;

/**
 * The pairs whose planned update writes tinyPM's status over a target status that still equals
 * the link's base, yet was changed on the target since that base was taken (a close and a reopen
 * between two runs — a run held up by a killed worker's lease, a tier not read): a person's edit
 * set back is an edit too, and the value alone cannot show it, so the target's own history is
 * asked (GitHub issue events, the Jira changelog), once per such pair, whether the status left
 * the one it holds now. Both ends of the question are the target's own clock, never this host's:
 * "since" is the item's change time stored with the base (`Snapshot.at`; the link's sync time
 * only for a base stored before it was kept), and changes that arrive at the held status are the
 * writes that made it (the tool's own walk along the workflow included), never an edit set back.
 * Without a history on the target, none. A pair with a pending target write is left out: the
 * tool's own interrupted write would read as a change.
 */
export async function statusTouchedSinceBase(
  ctx: EngineContext,
  plan: Plan,
): Promise<ReadonlySet<string>> {
  const read = ctx.target.statusLeftSince?.bind(ctx.target);
  const out = new Set<string>();
  if (read === undefined) return out;
  for (const a of plan.actions) {
    if (a.type !== "update" || !writesTargetStatusOverBase(ctx, a)) continue;
    const held = a.targetItem.status;
    const ref = { kind: a.kind, id: a.link.targetId };
    const touched = await call(ctx, "target", {
      name: `read the status changes of ${a.kind} ${a.link.targetId}`,
      kind: "read",
      run: () => read(ref, held, a.link.baseTarget.at ?? a.link.syncedAt),
    });
    if (touched) out.add(key(a.kind, a.link.tinypmId));
  }
  return out;
}

function writesTargetStatusOverBase(ctx: EngineContext, a: UpdateAction): boolean {
  if (!a.changes.some((c) => c.field === "status" && c.toSide === "target")) return false;
  if ((a.link.pendingWrites ?? []).some((w) => w.side === "target" && "status" in w.fields))
    return false;
  const held = targetSnapshot(ctx.mapping, a.targetItem).fields.status;
  return sameJson(held, a.link.baseTarget.fields.status);
}

/** The links with the status base of `touched` pairs unknown on both sides (the policy decides). */
export function withStatusUnknown(
  links: readonly LinkView[],
  touched: ReadonlySet<string>,
): LinkView[] {
  return links.map((l) =>
    touched.has(key(l.kind, l.tinypmId))
      ? {
          ...l,
          baseTinypm: {
            ...l.baseTinypm,
            fields: { ...l.baseTinypm.fields, status: EDITED_BOTH_BASE },
          },
          baseTarget: {
            ...l.baseTarget,
            fields: { ...l.baseTarget.fields, status: EDITED_BOTH_BASE },
          },
        }
      : l,
  );
}
