import type { ItemKind, WorkItem, WorkItemFields } from "../../core/model.js";
import { baseDeleted } from "./links.js";
import type { Side } from "./merge.js";
import type { LinkView, PlanAction } from "./plan-types.js";
import type { PlanInput } from "./plan-input.js";

/**
 * A link whose item is gone from one side (inferred only from a complete scan of that side):
 * mirrored on the other side per the job's `onDelete` (and only where the job's direction lets
 * changes flow), then remembered in the link so that it is neither recreated nor deleted twice.
 */
export function deletion(
  input: PlanInput,
  link: LinkView,
  title: string,
  deletedOn: Side,
  survivor: WorkItem | undefined,
): PlanAction[] {
  const side: Side = deletedOn === "tinypm" ? "target" : "tinypm";
  if (deletedBefore(link, deletedOn))
    return [
      {
        type: "skip",
        kind: link.kind,
        title,
        tinypmId: link.tinypmId,
        targetId: link.targetId,
        reason: "deleted",
      },
    ];
  const flows =
    side === "target" ? input.job.direction !== "to-tinypm" : input.job.direction !== "to-target";
  // The other side's copy is gone too only if that side was scanned in full (a sync reads the
  // target by its feed, which leaves out unchanged items).
  const survivorGone =
    survivor === undefined &&
    (deletedOn === "tinypm" ? input.target.complete : input.tinypm.complete);
  const wanted =
    !flows || input.job.onDelete === "ignore" || survivorGone ? "none" : input.job.onDelete;
  const set = wanted === "close" ? closeFields(input, side, link.kind) : undefined;
  // Nothing marks a tinyPM task closed (its statuses are all stages of work): only recorded.
  const mode = wanted === "close" && set === undefined ? "none" : wanted;
  const comment =
    mode === "close" && side === "target" ? closeComment(input.job.name, link) : undefined;
  const said = comment !== undefined && survivor?.comments.some((c) => c.body.includes(comment));
  return [
    {
      type: "delete",
      kind: link.kind,
      title,
      link,
      side,
      mode,
      set,
      ...(comment !== undefined && said !== true && { comment }),
    },
  ];
}

/** The link remembers its item deleted on that side already: the deletion is a skip. */
export function deletedBefore(link: LinkView, deletedOn: Side): boolean {
  return baseDeleted(link, deletedOn);
}

/**
 * What a target issue closed because its tinyPM item was deleted says, so that people reading
 * the issue know why: `Closed by tinypm-sync: story #123 was deleted in tinyPM (job main).`
 */
export function closeComment(job: string, link: Pick<LinkView, "kind" | "tinypmId">): string {
  return `Closed by tinypm-sync: ${link.kind} #${link.tinypmId} was deleted in tinyPM (job ${job}).`;
}

/** What marks an item closed: the target's closed status, or a rejected tinyPM story. */
function closeFields(
  input: PlanInput,
  side: Side,
  kind: ItemKind,
): Partial<WorkItemFields> | undefined {
  if (side === "tinypm") return kind === "story" ? { status: "REJECTED" } : undefined;
  if (input.targetSystem === "github") return { status: "closed:not_planned" };
  const probe: WorkItem = {
    system: "tinypm",
    kind,
    id: "0",
    title: "",
    status: kind === "story" ? "REJECTED" : "COMPLETED",
    assignees: [],
    labels: [],
    comments: [],
    timeEntries: [],
    metadata: {},
  };
  return { status: input.mapping.toTarget(probe).status };
}
