import { describe, expect, it } from "vitest";
import type { ItemKind } from "../../core/model.js";
import {
  checkDeletes,
  deleteLimit,
  guardStops,
  isDeletePercent,
  liveLinks,
  massDeleteWords,
} from "./delete-guard.js";
import type { DeleteAction, LinkView, Plan, PlanAction } from "./plan-types.js";
import { EMPTY_SNAPSHOT, type Snapshot } from "./snapshot.js";

const snapshot = (deleted?: boolean): Snapshot => ({
  ...EMPTY_SNAPSHOT,
  ...(deleted === true && { deleted }),
});

const link = (n: number, deleted?: "tinypm" | "target"): LinkView => ({
  kind: "story",
  tinypmId: String(n),
  targetId: String(100 + n),
  origin: "tinypm",
  baseTinypm: snapshot(deleted === "tinypm"),
  baseTarget: snapshot(deleted === "target"),
  syncedAt: "2026-01-01T00:00:00Z",
});

const del = (side: "tinypm" | "target", mode: DeleteAction["mode"], n: number): PlanAction => ({
  type: "delete",
  kind: "story" as ItemKind,
  title: `s${n}`,
  link: link(n),
  side,
  mode,
});

const plan = (actions: PlanAction[]): Plan => ({ job: "j", targetSystem: "github", actions });

describe("deleteLimit", () => {
  it("takes a number as the limit itself, even below the minimum", () => {
    expect(deleteLimit(25, 1000)).toBe(25);
    expect(deleteLimit(0, 1000)).toBe(0);
    expect(deleteLimit(2, 10)).toBe(2);
  });

  it("takes a percentage of the links, rounded down", () => {
    expect(deleteLimit("10%", 199)).toBe(19);
    expect(deleteLimit("10%", 200)).toBe(20);
    expect(deleteLimit("25%", 101)).toBe(25);
    expect(deleteLimit("2.5%", 1000)).toBe(25);
    expect(deleteLimit("100%", 40)).toBe(40);
  });

  it("never gives a percentage below 5", () => {
    expect(deleteLimit("10%", 20)).toBe(5);
    expect(deleteLimit("10%", 0)).toBe(5);
    expect(deleteLimit("1%", 499)).toBe(5);
    expect(deleteLimit("1%", 600)).toBe(6);
  });

  it('defaults to "10%", at least 5', () => {
    expect(deleteLimit(undefined, 30)).toBe(5);
    expect(deleteLimit(undefined, 199)).toBe(19);
  });

  it("refuses what is neither a number nor a percentage", () => {
    expect(() => deleteLimit("ten", 10)).toThrow(/maxDeletes/);
    expect(isDeletePercent("10%")).toBe(true);
    expect(isDeletePercent("10")).toBe(false);
  });
});

describe("checkDeletes", () => {
  it("counts closes and deletes per side, not the deletions only recorded", () => {
    const g = checkDeletes(
      plan([
        ...Array.from({ length: 6 }, (_, n) => del("tinypm", "delete", n)),
        del("target", "close", 7),
        del("target", "none", 8),
      ]),
      { links: 20 },
    );
    expect(g.planned).toEqual({ tinypm: 6, target: 1 });
    expect(g.limit).toBe(5);
    expect(g.over).toEqual(["tinypm"]);
    expect(guardStops(g)).toBe(true);
  });

  it("lets a count equal to the limit through (more than the limit stops)", () => {
    const g = checkDeletes(plan(Array.from({ length: 5 }, (_, n) => del("target", "close", n))), {
      links: 20,
    });
    expect(g.over).toEqual([]);
    expect(guardStops(g)).toBe(false);
  });

  it("stops on either side, and --allow-deletes lets the run through", () => {
    const actions = Array.from({ length: 3 }, (_, n) => del("target", "close", n));
    const g = checkDeletes(plan(actions), { maxDeletes: 2, links: 100 });
    expect(g.over).toEqual(["target"]);
    expect(guardStops(g)).toBe(true);
    const allowed = checkDeletes(plan(actions), { maxDeletes: 2, links: 100, allow: true });
    expect(allowed.allowed).toBe(true);
    expect(guardStops(allowed)).toBe(false);
  });

  it("takes the percentage of live links only", () => {
    const links = [
      ...Array.from({ length: 60 }, (_, n) => link(n)),
      link(70, "tinypm"),
      link(71, "target"),
    ];
    expect(liveLinks(links)).toBe(60);
  });
});

describe("massDeleteWords", () => {
  it("names the count, the side, the limit, the likely causes and what to do", () => {
    const g = checkDeletes(plan(Array.from({ length: 12 }, (_, n) => del("tinypm", "delete", n))), {
      links: 40,
    });
    const w = massDeleteWords(g, {
      job: "widgets",
      targetSystem: "jira",
      onDelete: "delete",
      side: "tinypm",
    });
    expect(w.message).toBe(
      'Job widgets: 12 of its 40 linked items are gone from Jira, and the run would delete their 12 counterparts on tinyPM (onDelete: delete) — more than the limit of 5 per run (maxDeletes "10%"). Nothing was written to tinyPM or Jira.',
    );
    expect(w.hint).toContain("the Jira project was emptied or recreated");
    expect(w.hint).toContain("the config names the wrong project (the target's project)");
    expect(w.hint).toContain("the token lost access");
    expect(w.hint).toContain("--allow-deletes");
    expect(w.hint).toContain("maxDeletes");
  });
});
