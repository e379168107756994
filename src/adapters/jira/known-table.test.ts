import { describe, expect, it } from "vitest";
import type { KnownVersion } from "./known-versions.js";
import { KnownTable } from "./known-table.js";

const version = (n: number, added?: string[]): KnownVersion => ({
  hash: n.toString(16).padStart(16, "0"),
  at: Date.parse("2026-11-30T05:00:00.000Z") + n,
  ...(added !== undefined && { added }),
});

describe("Jira's table of known issue versions", () => {
  it("gives back what was set, as a Map would, past its first columns' size", () => {
    const table = new KnownTable();
    const map = new Map<string, KnownVersion>();
    for (let n = 1; n <= 3_000; n++) {
      const v = version(n, n % 3 === 0 ? [`c:${n}`, "h1", `w:${n}`, "h2"] : undefined);
      table.set(`SCALE-${n}`, v);
      map.set(`SCALE-${n}`, v);
    }
    expect(table.size).toBe(3_000);
    for (const [key, v] of map) expect(table.get(key)).toEqual(v);
    expect([...table.keys()]).toEqual([...map.keys()]);
  });

  it("keeps an added list whose entries hold its separator as they are, and forgets on clear", () => {
    const table = new KnownTable();
    const odd = version(1, ["c:1", "a\u0000b"]);
    table.set("A-1", odd);
    table.set("A-2", version(2, []));
    expect(table.get("A-1")).toEqual(odd);
    expect(table.get("A-2")).toEqual(version(2));
    expect(table.delete("A-2")).toBe(true);
    expect(table.has("A-2")).toBe(false);
    table.clear();
    expect([table.size, table.get("A-1")]).toEqual([0, undefined]);
    table.set("A-3", version(3));
    expect(table.get("A-3")).toEqual(version(3));
  });
});
