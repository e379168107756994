import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef } from "../../src/core/model.js";
import { openSqliteStore, type LinkRecord } from "../../src/state/sqlite-store.js";
import { gateWithPerson, type PersonMoment } from "../support/person-gate.js";
import { held, personSets } from "../support/tinypm-person.js";
import { openConflicts, startWorld, type World } from "./world.js";

// A run carries a target edit to tinyPM while a person saves the same story or task in tinyPM.
// tinyPM takes no If-Match, and its PUT replaces the whole document. The person's save is made at
// the exact moment through the run's tinyPM request gate: when the update's write is let through
// (the write waited there for its turn), or right after the write was answered. Nothing the
// person saved may be lost: it stays in tinyPM and reaches the target (or, when both sides
// changed the same field, is kept as a conflict with both values).
describe.each(["story", "task"] as const)(
  "a person's tinyPM save while a run updates the %s",
  (kind) => {
    let world: World;
    let links: LinkRecord[] = [];

    beforeAll(async () => {
      world = await startWorld({ target: "github", generate: "stories=3,tasks=1,comments=0" });
      await world.run("migrate");
      const state = openSqliteStore({ path: world.statePath });
      try {
        links = [...state.links("widgets")].filter((l) => l.kind === kind);
      } finally {
        state.close();
      }
      if (links.length < 3) throw new Error(`only ${String(links.length)} ${kind} links`);
    }, 120_000);
    afterAll(async () => {
      await world.close();
    });

    const seg = kind === "story" ? "userstory" : "task";

    /** The link's refs; a person retitles the target item, so that the run writes tinyPM's. */
    const prepare = async (n: number, title: string) => {
      const link = links[n];
      if (link === undefined) throw new Error(`no link ${String(n)}`);
      const tinypmRef: ItemRef = { kind, id: link.tinypmId };
      const targetRef: ItemRef = { kind, id: link.targetId };
      const person = world.targetTracker();
      try {
        await person.update(targetRef, { set: { title } });
      } finally {
        await person.close();
      }
      const moment: PersonMoment = { write: `PUT /${seg}/{id} ${link.tinypmId}` };
      return { tinypmRef, targetRef, moment };
    };

    const onTarget = async (ref: ItemRef) => {
      const target = world.targetTracker();
      try {
        return await target.get(ref);
      } finally {
        await target.close();
      }
    };

    const sync = (moment?: PersonMoment) =>
      world.run("sync", {
        fullScan: true,
        ...(moment === undefined ? {} : { tinypmGate: gateWithPerson(moment) }),
      });

    it("the field being written, saved before the write: a conflict, both values kept", async () => {
      const { tinypmRef, targetRef, moment } = await prepare(0, "Retitled on GitHub (a)");
      moment.beforeWrite = () => {
        personSets(world.tinypm, tinypmRef, "name", "Retitled in tinyPM (a)");
      };
      const first = await sync(moment);
      expect(moment.beforeWrite).toBeUndefined();
      expect(first.summary.failed).toBe(1);
      expect(held(world.tinypm, tinypmRef).name).toBe("Retitled in tinyPM (a)");
      expect((await onTarget(targetRef))?.title).toBe("Retitled on GitHub (a)");

      // Re-planned: both sides changed the title since the base, so it is a field conflict.
      const second = await sync();
      expect(second.summary.failed).toBe(0);
      const conflict = openConflicts(world).find(
        (c) => c.kind === kind && c.tinypmId === tinypmRef.id && c.field === "title",
      );
      expect(conflict).toMatchObject({
        tinypmValue: "Retitled in tinyPM (a)",
        targetValue: "Retitled on GitHub (a)",
      });
      expect(held(world.tinypm, tinypmRef).name).toBe("Retitled in tinyPM (a)");
    }, 120_000);

    it("another field, saved before the write: kept in tinyPM and carried to the target", async () => {
      const { tinypmRef, targetRef, moment } = await prepare(1, "Retitled on GitHub (b)");
      moment.beforeWrite = () => {
        personSets(world.tinypm, tinypmRef, "description", "Described in tinyPM (b).");
      };
      const first = await sync(moment);
      expect(moment.beforeWrite).toBeUndefined();
      expect(first.summary.failed).toBe(0);
      expect(held(world.tinypm, tinypmRef)).toEqual({
        name: "Retitled on GitHub (b)",
        description: "Described in tinyPM (b).",
      });

      await sync();
      const carried = await onTarget(targetRef);
      expect(carried?.title).toBe("Retitled on GitHub (b)");
      // (A task's GitHub body also carries its tinyPM time table after the description.)
      expect(carried?.description?.startsWith("Described in tinyPM (b).")).toBe(true);
      const third = await sync();
      expect(third.summary.updated).toBe(0);
    }, 120_000);

    it("the field written, saved right after the write: carried to the target next run", async () => {
      const { tinypmRef, targetRef, moment } = await prepare(2, "Retitled on GitHub (c)");
      moment.afterWrite = () => {
        personSets(world.tinypm, tinypmRef, "name", "Retitled in tinyPM (c)");
      };
      const first = await sync(moment);
      expect(moment.afterWrite).toBeUndefined();
      expect(first.summary.failed).toBe(0);
      expect(held(world.tinypm, tinypmRef).name).toBe("Retitled in tinyPM (c)");

      await sync();
      expect((await onTarget(targetRef))?.title).toBe("Retitled in tinyPM (c)");
      expect(held(world.tinypm, tinypmRef).name).toBe("Retitled in tinyPM (c)");
      const third = await sync();
      expect(third.summary.updated).toBe(0);
    }, 120_000);
  },
);
