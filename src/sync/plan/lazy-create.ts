import type { CommentDraft, TimeEntryDraft, WorkItem, WorkItemDraft } from "../../core/model.js";
import type { CreateAction } from "./plan-types.js";
import type { Side } from "./merge.js";
import { JsonPack } from "../../core/json-pack.js";

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
 * Once the plan is made its source goes too (`packCreateSources`): kept packed, it is read back
 * from the plan's pack (core/json-pack.ts) each time it is asked for — in the plan's order, by the
 * apply step and the reports, so each chunk is decoded about once.
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
  readonly #maker: CreateMaker;
  /** The source itself, or where `#pack` keeps it. */
  readonly #source: WorkItem | number;
  readonly #pack: JsonPack<WorkItem> | undefined;

  constructor(
    toSide: Side,
    source: WorkItem,
    maker: CreateMaker,
    pack?: { readonly pack: JsonPack<WorkItem>; readonly slot: number },
  ) {
    this.toSide = toSide;
    this.kind = source.kind;
    this.title = source.title;
    this.parentSourceId = source.parentId;
    this.#maker = maker;
    this.#source = pack?.slot ?? source;
    this.#pack = pack?.pack;
  }

  get source(): WorkItem {
    const s = this.#source;
    if (typeof s !== "number") return s;
    if (this.#pack === undefined) throw new Error(`create of ${this.title}: packed without a pack`);
    return this.#pack.get(s);
  }

  /** The same create, its source kept in `pack`. */
  packed(pack: JsonPack<WorkItem>): LazyCreate {
    if (this.#pack !== undefined) return this;
    const source = this.source;
    return new LazyCreate(this.toSide, source, this.#maker, { pack, slot: pack.add(source) });
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

/**
 * The plan's creates with their sources packed (core/json-pack.ts), the other actions as they are:
 * once the plan is made, nothing but its creates holds what the read gave them.
 */
export function packCreateSources<A extends { readonly type: string }>(
  actions: readonly A[],
): readonly A[] {
  const pack = new JsonPack<WorkItem>();
  return actions.map((a) => (a instanceof LazyCreate ? (a.packed(pack) as unknown as A) : a));
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
