import type { CommentDraft, TimeEntryDraft, WorkItem, WorkItemDraft } from "../../core/model.js";
import type { CreateAction } from "./plan-types.js";
import type { Side } from "./merge.js";

/**
 * How a create's payload is made from its source, each part when asked (pure). One maker serves
 * every create of a side in a plan: a create holds its source and the maker, no closure of its own.
 */
export interface CreateMaker {
  draft(source: WorkItem): WorkItemDraft;
  comments(source: WorkItem): readonly CommentDraft[];
  timeEntries(source: WorkItem): readonly TimeEntryDraft[];
}

/**
 * A create action whose mapped draft, comments and time entries are made each time they are
 * read, not held: a migration plans one create per item before its first write, and their
 * payloads (the mapped text, the marker, every comment rendered for the other side) were half
 * of its live heap — 32 MB at 16,000 items — for the whole run. The apply step reads a create's
 * payload once, as its run of creates is sent; reports read it once more. The mapping is pure,
 * so every reading gives the same value.
 *
 * A class, its parts getters on the prototype: own getters (one closure and one accessor pair
 * per create) gave every create a hidden class of its own in V8 — 12.7 MB of descriptor arrays
 * and 8.4 MB of closures at 50,000 items. `toJSON` and `parts()` give the parts as plain data.
 */
class LazyCreate implements CreateAction {
  readonly type = "create" as const;
  readonly parentSourceId: string | undefined;
  readonly title: string;
  readonly kind: WorkItem["kind"];
  readonly toSide: Side;
  readonly source: WorkItem;
  readonly #maker: CreateMaker;

  constructor(toSide: Side, source: WorkItem, maker: CreateMaker) {
    this.toSide = toSide;
    this.source = source;
    this.kind = source.kind;
    this.title = source.title;
    this.parentSourceId = source.parentId;
    this.#maker = maker;
  }

  get draft(): WorkItemDraft {
    return this.#maker.draft(this.source);
  }

  get comments(): readonly CommentDraft[] {
    return this.#maker.comments(this.source);
  }

  get timeEntries(): readonly TimeEntryDraft[] {
    return this.#maker.timeEntries(this.source);
  }

  toJSON(): CreateAction {
    return createParts(this);
  }
}

/** The create of `source` on `toSide`, its payload made by `maker` when read. */
export function lazyCreate(toSide: Side, source: WorkItem, maker: CreateMaker): CreateAction {
  return new LazyCreate(toSide, source, maker);
}

/** A create as plain data, its payload made now (spread and equality see every part). */
export function createParts(a: CreateAction): CreateAction {
  return {
    type: "create",
    toSide: a.toSide,
    kind: a.kind,
    title: a.title,
    source: a.source,
    parentSourceId: a.parentSourceId,
    draft: a.draft,
    comments: a.comments,
    timeEntries: a.timeEntries,
  };
}
