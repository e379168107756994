import type { CommentDraft, TimeEntryDraft, WorkItemDraft } from "../../core/model.js";
import type { CreateAction } from "./plan-types.js";

/** What a create action holds itself: everything but what the mapping makes of its source. */
type CreateHead = Omit<CreateAction, "draft" | "comments" | "timeEntries">;

/** How a create's payload is made from its source, each part when asked (pure). */
export interface CreatePayload {
  readonly draft: () => WorkItemDraft;
  readonly comments: () => readonly CommentDraft[];
  readonly timeEntries: () => readonly TimeEntryDraft[];
}

/**
 * A create action whose mapped draft, comments and time entries are made each time they are
 * read, not held: a migration plans one create per item before its first write, and their
 * payloads (the mapped text, the marker, every comment rendered for the other side) were half
 * of its live heap — 32 MB at 16,000 items — for the whole run. The apply step reads a create's
 * payload once, as its run of creates is sent; reports read it once more. The mapping is pure,
 * so every reading gives the same value. The parts are plain enumerable properties to every
 * reader (spread, `JSON.stringify`, equality in tests).
 */
export function lazyCreate(head: CreateHead, payload: CreatePayload): CreateAction {
  const action = { ...head } as CreateAction;
  for (const [name, make] of Object.entries(payload) as [keyof CreatePayload, () => unknown][])
    Object.defineProperty(action, name, { get: make, enumerable: true });
  return action;
}
