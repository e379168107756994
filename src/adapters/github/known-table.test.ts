import { describe, expect, it } from "vitest";
import type { KnownVersion } from "./context.js";
import { KnownTable } from "./known-table.js";

const version = (n: number): KnownVersion => ({
  at: Date.parse("2026-11-30T05:00:00.000Z") + n * 1_001,
  comments: n % 7,
  digest: `AbC-_${n}`.padEnd(42, "x"),
});

describe("the table of known issue versions", () => {
  it("gives back what was set, as a Map would, past its first columns' size", () => {
    const table = new KnownTable();
    const map = new Map<number, KnownVersion>();
    for (let n = 1; n <= 5_000; n++) {
      const number = n * 3 + 100_000;
      table.set(number, version(n));
      map.set(number, version(n));
    }
    expect(table.size).toBe(5_000);
    for (const [number, v] of map) {
      expect(table.has(number)).toBe(true);
      expect(table.get(number)).toEqual(v);
    }
    expect(table.get(4)).toBeUndefined();
    expect(table.has(4)).toBe(false);
  });

  it("replaces a version, forgets a deleted one, and reuses its room for the next", () => {
    const table = new KnownTable();
    table.set(1, version(1));
    table.set(2, version(2));
    table.set(1, { at: 5, comments: 9, digest: "short" });
    expect(table.get(1)).toEqual({ at: 5, comments: 9, digest: "short" });
    expect(table.delete(2)).toBe(true);
    expect(table.delete(2)).toBe(false);
    expect(table.get(2)).toBeUndefined();
    expect(table.size).toBe(1);
    table.set(3, version(3));
    expect(table.get(3)).toEqual(version(3));
    expect(table.get(1)).toEqual({ at: 5, comments: 9, digest: "short" });
  });
});
