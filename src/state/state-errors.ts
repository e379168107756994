import { ConflictResolvedError, InternalError, UsageError } from "../core/errors.js";
import type { ItemKind } from "../core/model.js";
import type { FailureDraft, LinkRecord } from "./records.js";

/** The errors both state backends throw for the same misuse, worded once. */

export function noConflictError(id: number): UsageError {
  return new UsageError(`There is no conflict with id ${id}.`, {
    hint: "List the conflicts with `tinypm-sync conflicts list`.",
  });
}

export function conflictAppliedError(id: number, resolution: string | null): UsageError {
  if (resolution === null)
    return new UsageError(
      `Conflict ${id} settled itself: a sync found that it no longer holds (both sides agree on the field, one side's change was given up, or the item was deleted). Nothing was changed.`,
      { hint: "Change the field on either side if it is still wrong; the next sync picks it up." },
    );
  return new UsageError(`Conflict ${id} was resolved (take ${resolution}) and already applied.`, {
    hint: "Change the field on either side; the next sync picks it up.",
  });
}

const SIDE_WORDS: Record<string, string> = { tinypm: "tinyPM's", target: "the target's" };

/**
 * A second `conflicts resolve` that would change a decision already taken (not yet applied):
 * refused, naming when and how it was resolved and how to change one's mind on purpose.
 */
export function conflictResolvedError(c: {
  id: number;
  job: string;
  kind: string;
  tinypmId: string;
  field: string;
  resolution: string | null;
  resolvedAt: string | null;
  take: "tinypm" | "target";
}): ConflictResolvedError {
  const taken = SIDE_WORDS[c.resolution ?? ""] ?? "an unknown side's";
  return new ConflictResolvedError(
    `Conflict ${c.id} (job ${c.job}, ${c.kind} ${c.tinypmId}, field ${c.field}) was already ` +
      `resolved at ${c.resolvedAt ?? "an unknown time"}: ${taken} value was taken ` +
      `(--take ${c.resolution ?? "?"}). Nothing was changed.`,
    {
      hint:
        `The next sync writes that choice. To change your mind before then, resolve it again ` +
        `with --reopen: \`tinypm-sync conflicts resolve ${c.id} --take ${c.take} --reopen\` ` +
        `(serve's API: {"take":"${c.take}","reopen":true}).`,
      details: { id: c.id, resolution: c.resolution, resolvedAt: c.resolvedAt },
    },
  );
}

export function noLinkError(job: string, kind: ItemKind, tinypmId: string): InternalError {
  return new InternalError(`No link for tinyPM ${kind} ${tinypmId} in job ${job}.`, {
    hint: "Create the link with putLink or confirmIntent first (a bug in the caller).",
  });
}

export function alreadyLinkedError(link: LinkRecord, otherTinypmId: string): InternalError {
  return new InternalError(
    `Cannot link ${link.kind} ${link.targetId} of ${link.targetSystem} to tinyPM ` +
      `${link.tinypmId} in job ${link.job}: it is already linked to tinyPM ${otherTinypmId}.`,
    { hint: "Delete the old link first (a bug in the caller).", details: { ...link } },
  );
}

export function failureWithoutItemError(f: FailureDraft): InternalError {
  return new InternalError(`A parked failure of job ${f.job} names no item (${f.code}).`);
}

export function noRunError(runId: string): InternalError {
  return new InternalError(`No run ${runId} to finish.`);
}
