import { describe, expect, it } from "vitest";
import { RecentMap } from "./recent-map.js";

describe("RecentMap", () => {
  it("keeps at most its limit, dropping the least recently used entry", () => {
    const m = new RecentMap<string, number>(2);
    m.set("a", 1).set("b", 2);
    expect(m.get("a")).toBe(1); // a is now newer than b
    m.set("c", 3);
    expect(m.size).toBe(2);
    expect(m.get("b")).toBeUndefined();
    expect(m.get("a")).toBe(1);
    expect(m.get("c")).toBe(3);
  });

  it("a value written again is the newest and holds one entry", () => {
    const m = new RecentMap<string, number>(2);
    m.set("a", 1).set("b", 2).set("a", 9).set("c", 3);
    expect(m.get("a")).toBe(9);
    expect(m.get("b")).toBeUndefined();
    expect(m.size).toBe(2);
  });

  it("keeps what is read again among many values seen once", () => {
    const m = new RecentMap<string, string>(100);
    m.set("status|open", "x");
    const seen: (string | undefined)[] = [];
    for (let i = 0; i < 10_000; i++) {
      m.set(`title|${i}`, "t");
      if (i % 50 === 0) seen.push(m.get("status|open"));
    }
    expect(new Set(seen)).toEqual(new Set(["x"]));
    expect(m.get("title|0")).toBeUndefined();
    expect(m.size).toBe(100);
  });

  it("refuses a limit below one", () => {
    expect(() => new RecentMap(0)).toThrow(/at least 1/);
  });
});
