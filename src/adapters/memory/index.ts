import { NotFoundError, PayloadInvalidError, RateLimitError } from "../../core/errors.js";
import type {
  Comment,
  ItemRef,
  Iteration,
  Marker,
  SystemName,
  TimeEntry,
  UserRef,
  WorkItem,
  WorkItemDraft,
} from "../../core/model.js";
import type { ChangePage, Checkpoint, Tracker } from "../../core/tracker.js";

/** A fault the memory tracker throws on its next call (for the contract suite). */
type MemoryFault = "rate-limit" | "malformed";

interface MemoryTrackerOptions {
  /** The system name items claim (default `memory`). */
  readonly system?: SystemName;
  /** Items per `changes()` page (default 50). */
  readonly pageSize?: number;
  readonly users?: readonly UserRef[];
}

interface MemoryTracker extends Tracker {
  /** Makes the next call fail with the given fault. */
  injectFault(fault: MemoryFault): void;
  /** Every item, for assertions. */
  snapshot(): readonly WorkItem[];
  /** The calls made so far (the memory tracker sends no request: it has no request gate to count them). */
  calls(): { readonly reads: number; readonly writes: number };
}

interface Stored {
  item: WorkItem;
  seq: number;
}

/**
 * An in-process tracker: the executable specification of the `Tracker` contract. It keeps items
 * in a map, numbers every change with a sequence used as the change-feed cursor, and supports
 * every capability, so the contract suite runs against it first.
 */
export function createMemoryTracker(options: MemoryTrackerOptions = {}): MemoryTracker {
  const system = options.system ?? "memory";
  const pageSize = options.pageSize ?? 50;
  const items = new Map<string, Stored>();
  const deleted: { ref: ItemRef; seq: number }[] = [];
  const iterations: Iteration[] = [];
  let seq = 0;
  let nextId = 1;
  let fault: MemoryFault | undefined;
  const calls = { reads: 0, writes: 0 };

  const key = (ref: ItemRef): string => `${ref.kind}:${ref.id}`;
  const ctx = (operation: string, id?: string) => ({ system, operation, id });

  function enter(operation: string, kind: "reads" | "writes", id?: string): void {
    calls[kind]++;
    const f = fault;
    fault = undefined;
    if (f === "rate-limit") {
      throw new RateLimitError(
        `The memory tracker is rate limited on ${operation}.`,
        ctx(operation, id),
        {
          retryAfterMs: 1000,
          hint: "Wait one second and try again.",
        },
      );
    }
    if (f === "malformed") {
      throw new PayloadInvalidError(
        `The memory tracker returned a malformed payload for ${operation}.`,
        ctx(operation, id),
      );
    }
  }

  /** Runs one operation as the remote would: faults and errors become rejected promises. */
  function call<T>(
    operation: string,
    kind: "reads" | "writes",
    id: string | undefined,
    fn: () => T,
  ): Promise<T> {
    try {
      enter(operation, kind, id);
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  function save(item: WorkItem): WorkItem {
    seq++;
    items.set(key(item), { item, seq });
    return item;
  }

  function mustGet(ref: ItemRef, operation: string): WorkItem {
    const found = items.get(key(ref));
    if (!found) {
      throw new NotFoundError(
        `No ${ref.kind} ${ref.id} in the memory tracker.`,
        ctx(operation, ref.id),
        {
          hint: "The item may have been deleted; run `sync` again to relink.",
        },
      );
    }
    return found.item;
  }

  function build(draft: WorkItemDraft): WorkItem {
    const { metadata, marker, ...fields } = draft;
    return {
      ...fields,
      system,
      id: String(nextId++),
      comments: [],
      timeEntries: [],
      metadata: metadata ?? {},
      marker,
      updatedAt: new Date().toISOString(),
    };
  }

  const tracker: MemoryTracker = {
    system,
    capabilities: {
      comments: true,
      timeEntries: true,
      iterations: true,
      labels: true,
      delete: "hard",
      changeFeed: "cursor",
      markers: true,
      bulkCreate: 50,
    },
    async *list(query) {
      enter("list", "reads");
      for (const { item } of [...items.values()]) {
        if (query.kind !== undefined && item.kind !== query.kind) continue;
        if (query.parentId !== undefined && item.parentId !== query.parentId) continue;
        yield await Promise.resolve(item);
      }
    },
    get: (ref) => call("get", "reads", ref.id, () => items.get(key(ref))?.item),
    create: (draft) => call("create", "writes", undefined, () => save(build(draft))),
    createMany: (drafts) =>
      call("createMany", "writes", undefined, () => drafts.map((d) => save(build(d)))),
    update: (ref, patch) =>
      call("update", "writes", ref.id, () => {
        const current = mustGet(ref, "update");
        return save({
          ...current,
          ...patch.set,
          metadata: patch.metadata ?? current.metadata,
          marker: patch.marker ?? current.marker,
          updatedAt: new Date().toISOString(),
        });
      }),
    delete: (ref) =>
      call("delete", "writes", ref.id, () => {
        mustGet(ref, "delete");
        items.delete(key(ref));
        deleted.push({ ref, seq: ++seq });
      }),
    async *changes(from: Checkpoint | undefined) {
      enter("changes", "reads");
      const after = typeof from?.seq === "number" ? from.seq : 0;
      const upserts = [...items.values()].filter((s) => s.seq > after);
      const removals = deleted.filter((d) => d.seq > after);
      const all = [
        ...upserts.map((s) => ({ seq: s.seq, change: { kind: "upsert" as const, item: s.item } })),
        ...removals.map((d) => ({ seq: d.seq, change: { kind: "delete" as const, ref: d.ref } })),
      ].sort((a, b) => a.seq - b.seq);
      for (let i = 0; i < Math.max(all.length, 1); i += pageSize) {
        const page = all.slice(i, i + pageSize);
        const last = page.at(-1)?.seq ?? after;
        const result: ChangePage = {
          changes: page.map((p) => p.change),
          checkpoint: { seq: last },
          complete: from === undefined && i + pageSize >= all.length,
        };
        yield await Promise.resolve(result);
      }
    },
    findByMarker: (marker: Marker) =>
      call("findByMarker", "reads", undefined, () => {
        const same = (m: Marker | undefined): boolean =>
          m?.job === marker.job &&
          m.origin === marker.origin &&
          m.originKind === marker.originKind &&
          m.originId === marker.originId;
        return [...items.values()].find((s) => same(s.item.marker))?.item;
      }),
    addComment: (ref, draft) =>
      call("addComment", "writes", ref.id, () => {
        const item = mustGet(ref, "addComment");
        const comment: Comment = {
          id: String(nextId++),
          author: draft.author,
          createdAt: draft.createdAt,
          body: draft.body,
        };
        save({ ...item, comments: [...item.comments, comment] });
        return comment;
      }),
    addTimeEntry: (ref, draft) =>
      call("addTimeEntry", "writes", ref.id, () => {
        const item = mustGet(ref, "addTimeEntry");
        const entry: TimeEntry = { ...draft, id: String(nextId++) };
        save({ ...item, timeEntries: [...item.timeEntries, entry] });
        return entry;
      }),
    listIterations: () => call("listIterations", "reads", undefined, () => [...iterations]),
    ensureIteration: (draft) =>
      call("ensureIteration", "reads", undefined, () => {
        const found = iterations.find((it) => it.name === draft.name);
        if (found) return found;
        calls.writes++;
        const created: Iteration = { ...draft, id: String(nextId++) };
        iterations.push(created);
        return created;
      }),
    listUsers: () => call("listUsers", "reads", undefined, () => options.users ?? []),
    probe() {
      return Promise.resolve({
        system,
        reachable: true,
        authenticated: true,
        projectVisible: true,
        canWrite: true,
        details: `memory tracker with ${items.size} items`,
      });
    },
    calls: () => ({ reads: calls.reads, writes: calls.writes }),
    close: () => Promise.resolve(),
    injectFault(f) {
      fault = f;
    },
    snapshot: () => [...items.values()].map((s) => s.item),
  };
  return tracker;
}
