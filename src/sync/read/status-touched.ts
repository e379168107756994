import type { ItemKind, SystemName } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { Lanes } from "../../gate/lanes.js";
import type { LinkView } from "../plan/plan-types.js";
import type { StatusQuestion } from "../plan/status-over-base.js";
import { EDITED_BOTH_BASE } from "../plan/unknown-base.js";

const key = (kind: ItemKind, tinypmId: string): string => `${kind}:${tinypmId}`;

/**
 * The pairs whose update would write tinyPM's status over a target status that still equals
 * the link's base (plan/status-over-base.ts decides which, from the read and the stored links),
 * yet was changed on the target since that base was taken (a close and a reopen between two
 * runs — a run held up by a killed worker's lease, a tier not read): a person's edit set back is
 * an edit too, and the value alone cannot show it, so the target's own history is asked (GitHub
 * issue events, the Jira changelog), once per such pair, whether the status left the one it
 * holds now. Both ends of the question are the target's own clock, never this host's: "since" is
 * the item's change time stored with the base (`Snapshot.at`; the link's sync time only for a
 * base stored before it was kept), and changes that arrive at the held status are the writes that
 * made it (the tool's own walk along the workflow included), never an edit set back. Without a
 * history on the target, none.
 */
export async function readStatusTouched(
  o: { lanes: Lanes; targetSystem: SystemName; target: Tracker },
  questions: readonly StatusQuestion[],
): Promise<ReadonlySet<string>> {
  const read = o.target.statusLeftSince?.bind(o.target);
  const out = new Set<string>();
  if (read === undefined) return out;
  for (const q of questions) {
    const ref = { kind: q.kind, id: q.targetId };
    const touched = await o.lanes.run(o.targetSystem, {
      name: `read the status changes of ${q.kind} ${q.targetId}`,
      kind: "read",
      run: () => read(ref, q.held, q.since),
    });
    if (touched) out.add(key(q.kind, q.tinypmId));
  }
  return out;
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
