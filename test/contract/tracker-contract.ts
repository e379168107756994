import { describe, expect, it } from "vitest";
import { NotFoundError, PayloadInvalidError, RateLimitError } from "../../src/core/errors.js";
import type { Marker, WorkItem, WorkItemDraft } from "../../src/core/model.js";
import type { ChangePage, Tracker } from "../../src/core/tracker.js";

/** What an adapter's contract test provides to the shared suite. */
export interface ContractSetup {
  readonly tracker: Tracker;
  /**
   * A valid story draft in this system's flavour (status values differ per system), distinct
   * per `n`. The suite may override `title`, `labels` and `description`.
   */
  draft(n: number): WorkItemDraft;
  /** A valid task draft under the story `parentId`. */
  taskDraft?(n: number, parentId: string): WorkItemDraft;
  /** An item id that does not exist in this system. */
  readonly missingId: string;
  /** How many items one page of `list`/`changes` holds (the suite seeds one more). */
  readonly pageSize: number;
  /** Makes the next call(s) to the remote fail: a 429 with Retry-After, or a malformed body. */
  injectFault(kind: "rate-limit" | "malformed"): Promise<void> | void;
  clearFaults(): Promise<void> | void;
  close(): Promise<void>;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

/** The fields a created item must give back as written. */
function written(item: WorkItem | WorkItemDraft) {
  return {
    kind: item.kind,
    title: item.title,
    description: item.description ?? "",
    status: item.status,
    labels: [...item.labels].sort(),
  };
}

/**
 * The contract every adapter passes (style.md R14). Each adapter's test file calls this with a
 * setup that starts its server (or sandbox) and returns a fresh tracker.
 */
export function defineTrackerContract(name: string, setup: () => Promise<ContractSetup>): void {
  describe(`Tracker contract: ${name}`, () => {
    const withSetup = (fn: (s: ContractSetup) => Promise<void>) => async () => {
      const s = await setup();
      try {
        await fn(s);
      } finally {
        await s.clearFaults();
        await s.close();
      }
    };

    it(
      "gives back what it created, in canonical form",
      withSetup(async (s) => {
        const draft = {
          ...s.draft(1),
          title: "Ünïcode «story» & <tags>",
          description: "line one\nline two",
        };
        const created = await s.tracker.create(draft);
        const read = await s.tracker.get({ kind: "story", id: created.id });
        expect(read).toBeDefined();
        expect(written(read!)).toEqual(written(draft));
        expect(read!.system).toBe(s.tracker.system);
      }),
    );

    it(
      "lists across a page boundary",
      withSetup(async (s) => {
        const drafts = Array.from({ length: s.pageSize + 1 }, (_, i) => s.draft(i + 1));
        for (const d of drafts) await s.tracker.create(d);
        const listed = await collect(s.tracker.list({ kind: "story" }));
        const titles = new Set(listed.map((i) => i.title));
        for (const d of drafts) expect(titles).toContain(d.title);
      }),
    );

    it(
      "yields everything and a checkpoint from changes() without a checkpoint",
      withSetup(async (s) => {
        const a = await s.tracker.create(s.draft(1));
        const b = await s.tracker.create(s.draft(2));
        const pages = await collect(s.tracker.changes(undefined));
        const ids = upsertIds(pages);
        expect(ids).toContain(a.id);
        expect(ids).toContain(b.id);
        expect(pages.at(-1)?.checkpoint).toBeDefined();
      }),
    );

    it(
      "yields the later changes from changes(checkpoint)",
      withSetup(async (s) => {
        const a = await s.tracker.create(s.draft(1));
        const first = await collect(s.tracker.changes(undefined));
        const checkpoint = first.at(-1)!.checkpoint;
        const b = await s.tracker.create(s.draft(2));
        await s.tracker.update({ kind: "story", id: a.id }, { set: { title: "renamed" } });
        const later = await collect(s.tracker.changes(checkpoint));
        const ids = upsertIds(later);
        expect(ids).toContain(b.id);
        expect(ids).toContain(a.id);
        const renamed = later
          .flatMap((p) => p.changes)
          .find((c) => c.kind === "upsert" && c.item.id === a.id);
        expect(renamed?.kind === "upsert" ? renamed.item.title : undefined).toBe("renamed");
      }),
    );

    it(
      "throws NotFoundError when updating a missing id",
      withSetup(async (s) => {
        await expect(
          s.tracker.update({ kind: "story", id: s.missingId }, { set: { title: "x" } }),
        ).rejects.toBeInstanceOf(NotFoundError);
        expect(await s.tracker.get({ kind: "story", id: s.missingId })).toBeUndefined();
      }),
    );

    it(
      "turns a 429 into RateLimitError with retryAfterMs",
      withSetup(async (s) => {
        await s.injectFault("rate-limit");
        const error = await s.tracker.create(s.draft(1)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RateLimitError);
        expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
      }),
    );

    it(
      "turns a malformed payload into PayloadInvalidError",
      withSetup(async (s) => {
        const created = await s.tracker.create(s.draft(1));
        await s.injectFault("malformed");
        await expect(s.tracker.get({ kind: "story", id: created.id })).rejects.toBeInstanceOf(
          PayloadInvalidError,
        );
      }),
    );

    it(
      "creates many items, one result per draft",
      withSetup(async (s) => {
        const results = await s.tracker.createMany([s.draft(1), s.draft(2), s.draft(3)]);
        expect(results).toHaveLength(3);
        for (const r of results) expect(r).not.toBeInstanceOf(Error);
      }),
    );

    it(
      "creates a task under its story",
      withSetup(async (s) => {
        if (!s.taskDraft) return;
        const story = await s.tracker.create(s.draft(1));
        const task = await s.tracker.create(s.taskDraft(1, story.id));
        const read = await s.tracker.get({ kind: "task", id: task.id });
        expect(read?.kind).toBe("task");
        expect(read?.parentId).toBe(story.id);
      }),
    );

    it(
      "adds a comment that reads back",
      withSetup(async (s) => {
        if (!s.tracker.capabilities.comments) return;
        const story = await s.tracker.create(s.draft(1));
        await s.tracker.addComment(
          { kind: "story", id: story.id },
          {
            author: { name: "Alice" },
            createdAt: "2024-01-02T03:04:05.000",
            body: "first\nsecond",
          },
        );
        const read = await s.tracker.get({ kind: "story", id: story.id });
        expect(read?.comments.map((c) => c.body.includes("first\nsecond"))).toContain(true);
      }),
    );

    it(
      "finds an item it created by its marker",
      withSetup(async (s) => {
        if (!s.tracker.capabilities.markers) return;
        const marker: Marker = {
          job: "contract",
          origin: "tinypm",
          originKind: "story",
          originId: "4711",
        };
        const created = await s.tracker.create({ ...s.draft(1), marker });
        const found = await s.tracker.findByMarker(marker);
        expect(found?.id).toBe(created.id);
        expect(await s.tracker.findByMarker({ ...marker, originId: "4712" })).toBeUndefined();
      }),
    );

    it(
      "deletes per its capabilities",
      withSetup(async (s) => {
        if (s.tracker.capabilities.delete === "unsupported") return;
        const story = await s.tracker.create(s.draft(1));
        await s.tracker.delete({ kind: "story", id: story.id });
        const read = await s.tracker.get({ kind: "story", id: story.id });
        const gone =
          s.tracker.capabilities.delete === "hard"
            ? read === undefined
            : read?.status !== story.status;
        expect(gone).toBe(true);
      }),
    );
  });
}

function upsertIds(pages: readonly ChangePage[]): string[] {
  return pages.flatMap((p) => p.changes.flatMap((c) => (c.kind === "upsert" ? [c.item.id] : [])));
}
