import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { RemoteUnavailableError, StateError } from "../../src/core/errors.js";
import type { ItemRef } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openSqliteStore, type LinkRecord } from "../../src/state/sqlite-store.js";
import type { StateStore } from "../../src/state/store.js";
import type { RunMode, RunReport } from "../../src/sync/engine.js";
import { startWorld, storyLinks, type World } from "./world.js";

// A run writes a field to one side, then stops before the link's base update (a SIGKILL, the
// state gone, a lost lease). A person then sets that side back to the old value. The next run
// must not take the side for "unchanged since the base" and write the field over the person's
// edit again: it cannot tell the revert from a write that never landed, so it is a conflict.
const TARGET_STATUS = {
  github: { PENDING: "open", ACCEPTED: "closed:completed" },
  jira: { PENDING: "To Do", ACCEPTED: "Done" },
} as const;

/** Every run reads all of tinyPM (no tiers), so each edit is seen by the next run. */
const FULL = { fullScan: true } as const;

/** The run's state, stopping the run (as a crash would) at the base update of one link. */
const stopAtBase =
  (tinypmId: string, stopped: { n: number }) =>
  (state: StateStore): StateStore =>
    new Proxy(state, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (name !== "updateBase" || typeof value !== "function") return value;
        return async (...args: unknown[]): Promise<unknown> => {
          if (args[2] === tinypmId) {
            stopped.n++;
            throw new StateError("state_unavailable", "stopped at the base update (test)");
          }
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });

/** The run's target tracker, whose update of `id` stops before sending (as a process would). */
const refuseUpdateOf =
  (id: string, onRefused: () => void) =>
  (tracker: Tracker): Tracker => {
    const update: Tracker["update"] = async (ref, patch, opts) => {
      if (ref.id !== id) return tracker.update(ref, patch, opts);
      onRefused();
      throw new RemoteUnavailableError(
        "stopped before the write (test)",
        { system: tracker.system, operation: "update" },
        { transient: false },
      );
    };
    return new Proxy(tracker, {
      get: (target, prop, receiver) =>
        prop === "update" ? update : (Reflect.get(target, prop, receiver) as unknown),
    });
  };

describe.each(["github", "jira"] as const)(
  "a write to %s interrupted before its base update",
  (kind) => {
    let world: World;
    let stories: LinkRecord[] = [];
    let tinypm: Tracker;
    let person: Tracker;

    // One clock for the target and the engine, as on a host whose clock agrees with the
    // server's: a test needing a later second moves it on instead of waiting for the real one,
    // which made the test's outcome hang on the machine's speed.
    let ahead = 0;
    // A test may stop the clock (`frozen`: its real time) to place events in exact seconds.
    let frozen: number | undefined;
    const now = (): number => (frozen ?? Date.now()) + ahead;
    const run = (mode: RunMode, job: Parameters<World["run"]>[1] = {}): Promise<RunReport> =>
      world.run(mode, { now: () => new Date(now()), ...job });

    beforeAll(async () => {
      world = await startWorld({
        target: kind,
        generate: "stories=8,tasks=0,comments=0",
        ...(kind === "github" ? { github: { now } } : { jira: { now } }),
      });
      tinypm = world.tinypmTracker();
      person = world.targetTracker();
      await run("migrate");
      stories = storyLinks(world, 8);
      // Every story PENDING on both sides to start from.
      for (const l of stories)
        await tinypm.update({ kind: "story", id: l.tinypmId }, { set: { status: "PENDING" } });
      await run("sync", FULL);
    }, 180_000);
    afterAll(async () => {
      await tinypm.close();
      await person.close();
      await world.close();
    });

    const refs = (i: number): { link: LinkRecord; t: ItemRef; g: ItemRef } => {
      const link = stories[i];
      if (link === undefined) throw new Error(`no story ${String(i)}`);
      return {
        link,
        t: { kind: "story", id: link.tinypmId },
        g: { kind: "story", id: link.targetId },
      };
    };
    const tinypmStatus = async (ref: ItemRef) => (await tinypm.get(ref))?.status;
    const targetStatus = async (ref: ItemRef) => (await person.get(ref))?.status;
    const stored = (tinypmId: string): LinkRecord | undefined => {
      const state = openSqliteStore({ path: world.statePath });
      try {
        return state.getLinkByTinypm("widgets", "story", tinypmId);
      } finally {
        state.close();
      }
    };
    const openConflicts = (tinypmId: string) => {
      const state = openSqliteStore({ path: world.statePath });
      try {
        return state.conflicts({ status: "open" }).filter((c) => c.tinypmId === tinypmId);
      } finally {
        state.close();
      }
    };
    /** A sync stopped at the base update of `tinypmId`, after its writes. */
    const interrupted = async (tinypmId: string): Promise<void> => {
      const stopped = { n: 0 };
      const outcome: unknown = await run("sync", {
        ...FULL,
        wrapState: stopAtBase(tinypmId, stopped),
      }).catch((e: unknown) => e);
      // The run stops there (a state error stops it whole): no base update after the writes.
      expect(outcome).toBeInstanceOf(StateError);
      expect(stopped.n).toBe(1);
      expect(stored(tinypmId)?.pendingWrites?.length).toBeGreaterThan(0);
    };

    it("tinyPM side: a person's revert after the interrupted write is a conflict, never written over", async () => {
      const { link, t, g } = refs(0);
      await person.update(g, { set: { status: TARGET_STATUS[kind].ACCEPTED } });
      await interrupted(link.tinypmId);
      expect(await tinypmStatus(t)).toBe("ACCEPTED");
      await tinypm.update(t, { set: { status: "PENDING" } });

      await run("sync", FULL);
      expect(await tinypmStatus(t)).toBe("PENDING");
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].ACCEPTED);
      const open = openConflicts(link.tinypmId);
      expect(open.map((c) => [c.field, c.baseValue, c.tinypmValue, c.targetValue])).toEqual([
        ["status", "unknown: a write was interrupted", "PENDING", "ACCEPTED"],
      ]);
      expect(stored(link.tinypmId)?.pendingWrites).toBeUndefined();
      // Still parked on the next run: nothing written either way until it is resolved.
      await run("sync", FULL);
      expect(await tinypmStatus(t)).toBe("PENDING");
      expect(openConflicts(link.tinypmId)).toHaveLength(1);
    }, 120_000);

    it("target side: a person's reopen after the interrupted write is a conflict, never written over", async () => {
      const { link, t, g } = refs(1);
      await tinypm.update(t, { set: { status: "ACCEPTED" } });
      await interrupted(link.tinypmId);
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].ACCEPTED);
      await person.update(g, { set: { status: TARGET_STATUS[kind].PENDING } });

      await run("sync", FULL);
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].PENDING);
      expect(await tinypmStatus(t)).toBe("ACCEPTED");
      const open = openConflicts(link.tinypmId);
      expect(open.map((c) => [c.field, c.baseValue, c.tinypmValue, c.targetValue])).toEqual([
        ["status", "unknown: a write was interrupted", "ACCEPTED", "PENDING"],
      ]);
    }, 120_000);

    it("under the target policy, the target's reopen wins over tinyPM's interrupted change", async () => {
      const { link, t, g } = refs(2);
      await tinypm.update(t, { set: { status: "ACCEPTED" } });
      await interrupted(link.tinypmId);
      await person.update(g, { set: { status: TARGET_STATUS[kind].PENDING } });

      await run("sync", { ...FULL, conflicts: "target" });
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].PENDING);
      expect(await tinypmStatus(t)).toBe("PENDING");
      expect(openConflicts(link.tinypmId)).toEqual([]);
      const again = await run("sync", { ...FULL, conflicts: "target" });
      expect(again.summary.updated).toBe(0);
    }, 120_000);

    it("under the tinypm policy, tinyPM's revert wins over the target's interrupted change", async () => {
      const { link, t, g } = refs(3);
      await person.update(g, { set: { status: TARGET_STATUS[kind].ACCEPTED } });
      await interrupted(link.tinypmId);
      await tinypm.update(t, { set: { status: "PENDING" } });

      await run("sync", { ...FULL, conflicts: "tinypm" });
      expect(await tinypmStatus(t)).toBe("PENDING");
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].PENDING);
      expect(openConflicts(link.tinypmId)).toEqual([]);
    }, 120_000);

    it("a write that landed settles without a conflict, and the record is cleared", async () => {
      const { link, t, g } = refs(4);
      await tinypm.update(t, { set: { status: "ACCEPTED", title: "Landed before the stop" } });
      await interrupted(link.tinypmId);
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].ACCEPTED);

      await run("sync", FULL);
      expect(openConflicts(link.tinypmId)).toEqual([]);
      expect(stored(link.tinypmId)?.pendingWrites).toBeUndefined();
      expect(await tinypmStatus(t)).toBe("ACCEPTED");
      expect((await person.get(g))?.title).toBe("Landed before the stop");
      // Settled: a later change on one side flows as usual.
      await person.update(g, { set: { status: TARGET_STATUS[kind].PENDING } });
      await run("sync", FULL);
      expect(await tinypmStatus(t)).toBe("PENDING");
      expect(openConflicts(link.tinypmId)).toEqual([]);
    }, 120_000);

    // The write landed; then a person set its SOURCE side back. The pair agreed at the write, so
    // that is a change like any other: it flows. When the settled base kept the source side's
    // older value, both sides matched their own bases and nothing was planned, ever (the
    // signature of the chaos test's lost GitHub close, gh4 story 8004).
    it("target write landed, then tinyPM set back: tinyPM's change flows to the target", async () => {
      const { link, t, g } = refs(6);
      await tinypm.update(t, { set: { status: "ACCEPTED" } });
      await interrupted(link.tinypmId);
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].ACCEPTED);
      await tinypm.update(t, { set: { status: "PENDING" } });

      await run("sync", FULL);
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].PENDING);
      expect(await tinypmStatus(t)).toBe("PENDING");
      expect(openConflicts(link.tinypmId)).toEqual([]);
      expect(stored(link.tinypmId)?.pendingWrites).toBeUndefined();
      const again = await run("sync", FULL);
      expect(again.summary.updated).toBe(0);
    }, 120_000);

    it("tinyPM write landed, then the target set back: the target's change flows to tinyPM", async () => {
      const { link, t, g } = refs(7);
      await person.update(g, { set: { status: TARGET_STATUS[kind].ACCEPTED } });
      await interrupted(link.tinypmId);
      expect(await tinypmStatus(t)).toBe("ACCEPTED");
      await person.update(g, { set: { status: TARGET_STATUS[kind].PENDING } });

      await run("sync", FULL);
      expect(await tinypmStatus(t)).toBe("PENDING");
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].PENDING);
      expect(openConflicts(link.tinypmId)).toEqual([]);
      const again = await run("sync", FULL);
      expect(again.summary.updated).toBe(0);
    }, 120_000);

    it("a target write that never landed is sent again, without a conflict", async () => {
      const { link, t, g } = refs(5);
      // The target item's change time must be in an earlier second than the write's start
      // (change times are per second): the clock moves on a second, no wait for it.
      ahead += 1_000;
      await tinypm.update(t, { set: { status: "ACCEPTED" } });
      let refused = 0;
      await run("sync", {
        ...FULL,
        // The write is recorded, then never sent (the process stops before the request).
        wrapTarget: refuseUpdateOf(link.targetId, () => refused++),
      }).catch(() => undefined);
      expect(refused).toBe(1);
      expect(stored(link.tinypmId)?.pendingWrites?.map((w) => w.side)).toEqual(["target"]);
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].PENDING);

      await run("sync", FULL);
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].ACCEPTED);
      expect(openConflicts(link.tinypmId)).toEqual([]);
      expect(stored(link.tinypmId)?.pendingWrites).toBeUndefined();
    }, 120_000);

    it("tells a write that never landed by the service's clock, not the host's", async () => {
      const { link, t, g } = refs(6);
      frozen = Date.now();
      onTestFinished(() => {
        frozen = undefined;
      });
      // The target item changes in second S of the service's clock…
      ahead += 1_000;
      await person.update(g, { set: { title: "Renamed on the target" } });
      await tinypm.update(t, { set: { status: "ACCEPTED" } });
      // …the write starts in second S + 1, on a host whose clock is a second behind: on the
      // host's clock the write started in the item's own second.
      ahead += 1_000;
      const host = (): Date => new Date(now() - 1_000);
      let refused = 0;
      await run("sync", {
        ...FULL,
        now: host,
        wrapTarget: refuseUpdateOf(link.targetId, () => refused++),
      }).catch(() => undefined);
      expect(refused).toBe(1);
      const pending = stored(link.tinypmId)?.pendingWrites?.find((w) => w.side === "target");
      expect(pending?.updatedAt).toBeDefined();
      // Recorded on the service's clock: a second past the item's change time.
      expect(Math.floor(Date.parse(pending?.startedAt ?? "") / 1000)).toBeGreaterThan(
        Math.floor(Date.parse(pending?.updatedAt ?? "") / 1000),
      );

      await run("sync", { ...FULL, now: host });
      expect(await targetStatus(g)).toBe(TARGET_STATUS[kind].ACCEPTED);
      expect(openConflicts(link.tinypmId)).toEqual([]);
    }, 120_000);
  },
);
