import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { TieredScan, Tracker } from "../../src/core/tracker.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import type { RunReport } from "../../src/sync/engine.js";
import { startWorld, storyLinks, type World } from "./world.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * Issue #36: a sync keeps of tinyPM's read only what changed. A linked item read as its link's
 * base holds it is let go as it is read and skipped as unchanged from its key; one whose copy
 * changed on the target is read again by id and merged as before, and a complete read still
 * finds a deleted story among the items it let go.
 */
describe.each(["github", "jira"] as const)(
  "a sync lets go of unchanged tinyPM items (%s)",
  (kind) => {
    let world: World;
    let tinypm: Tracker;
    let target: Tracker;
    let stories: LinkRecord[] = [];
    const ITEMS = 24; // 12 stories with a task each

    /** The run's tinyPM tracker, each item its tiered read hands the run followed weakly. */
    const follow = (): {
      wrap: (tracker: Tracker) => Tracker;
      handed: () => number;
      alive: () => Promise<WorkItem[]>;
    } => {
      const refs: WeakRef<WorkItem>[] = [];
      const scanOf = (scan: TieredScan): TieredScan =>
        new Proxy(scan, {
          get(s, prop, receiver) {
            const value = Reflect.get(s, prop, receiver) as unknown;
            if (prop !== "read" || typeof value !== "function") return value;
            const read = value as TieredScan["read"];
            return async function* (...args: Parameters<TieredScan["read"]>) {
              for await (const item of read.apply(s, args)) {
                refs.push(new WeakRef(item));
                yield item;
              }
            };
          },
        });
      const wrap = (tracker: Tracker): Tracker =>
        new Proxy(tracker, {
          get(t, prop, receiver) {
            const value = Reflect.get(t, prop, receiver) as unknown;
            if (prop !== "startTieredScan" || typeof value !== "function") return value;
            const start = value as NonNullable<Tracker["startTieredScan"]>;
            return async (...args: Parameters<NonNullable<Tracker["startTieredScan"]>>) =>
              scanOf(await start.apply(t, args));
          },
        });
      const alive = async (): Promise<WorkItem[]> => {
        await new Promise((resolve) => setImmediate(resolve));
        gc();
        gc();
        return refs.flatMap((r) => {
          const item = r.deref();
          return item === undefined ? [] : [item];
        });
      };
      return { wrap, handed: () => refs.length, alive };
    };

    /** A sync reading all of tinyPM; what was alive of its read when it asked the target's feed. */
    const sync = async (): Promise<{ report: RunReport; handed: number; kept: WorkItem[] }> => {
      const followed = follow();
      let kept: WorkItem[] | undefined;
      const wrapTarget = (tracker: Tracker): Tracker =>
        new Proxy(tracker, {
          get(t, prop, receiver) {
            const value = Reflect.get(t, prop, receiver) as unknown;
            if (prop !== "changes" || typeof value !== "function") return value;
            const changes = value as Tracker["changes"];
            return async function* (...args: Parameters<Tracker["changes"]>) {
              kept ??= await followed.alive();
              yield* changes.apply(t, args);
            };
          },
        });
      const report = await world.run("sync", {
        fullScanEvery: 1,
        wrapTinypm: followed.wrap,
        wrapTarget,
      });
      expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
      if (kept === undefined) throw new Error("the sync never read the target's feed");
      return { report, handed: followed.handed(), kept };
    };

    const get = async (tracker: Tracker, id: string): Promise<WorkItem> => {
      const item = await tracker.get({ kind: "story", id });
      if (item === undefined) throw new Error(`story ${id} is missing`);
      return item;
    };

    beforeAll(async () => {
      world = await startWorld({ target: kind, generate: "stories=12,tasks=1,comments=0" });
      tinypm = world.tinypmTracker();
      target = world.targetTracker();
      await world.run("migrate");
      await world.run("sync", { fullScanEvery: 1 });
      stories = storyLinks(world, 4);
    });
    afterAll(async () => {
      await tinypm.close();
      await target.close();
      await world.close();
    });

    it("holds nothing of a quiet read and skips every pair as unchanged", async () => {
      const { report, handed, kept } = await sync();
      expect(handed).toBe(ITEMS);
      expect(kept).toEqual([]);
      expect(report.tinypmRead.complete).toBe(true);
      expect(report.summary).toMatchObject({ unchanged: ITEMS, updated: 0, deleted: 0 });
    });

    it("keeps what changed, reads again what the target changed, and still finds a deletion", async () => {
      const [a, b, c] = stories;
      if (a === undefined || b === undefined || c === undefined) throw new Error("too few stories");
      await tinypm.update(
        { kind: "story", id: a.tinypmId },
        { set: { description: "Edited here" } },
      );
      await target.update({ kind: "story", id: b.targetId }, { set: { title: "Retitled there" } });
      await tinypm.delete({ kind: "story", id: c.tinypmId });
      const { report, handed, kept } = await sync();
      // Read: every item but the deleted story and its task; kept: the edited story alone.
      expect(handed).toBe(ITEMS - 2);
      expect(kept.map((i) => [i.kind, i.id])).toEqual([["story", a.tinypmId]]);
      expect(report.tinypmRead.complete).toBe(true);
      // The story retitled on the target was let go, then read again by id.
      expect(report.tinypmRead.fetched).toBe(1);
      expect(report.summary).toMatchObject({ updated: 2, deleted: 2, unchanged: ITEMS - 4 });
      expect((await get(target, a.targetId)).description).toContain("Edited here");
      expect((await get(tinypm, b.tinypmId)).title).toBe("Retitled there");
      const deletes = report.plan.actions.flatMap((x) => (x.type === "delete" ? [x] : []));
      expect(deletes.map((d) => [d.kind, d.side, d.mode])).toEqual([
        ["story", "target", "close"],
        ["task", "target", "close"],
      ]);
    });
  },
);
