import { describe, expect, it } from "vitest";
import { InlineStrings, Slots } from "./slot-table.js";

describe("slots for keys", () => {
  it("gives each key one slot, reuses a deleted key's, and grows by doubling", () => {
    const sizes: number[] = [];
    const slots = new Slots<string>(2, (size) => sizes.push(size));
    expect([slots.take("a"), slots.take("b"), slots.take("a")]).toEqual([0, 1, 0]);
    expect(slots.take("c")).toBe(2);
    expect(sizes).toEqual([4]);
    expect(slots.delete("b")).toBe(1);
    expect(slots.delete("b")).toBeUndefined();
    expect(slots.take("d")).toBe(1);
    expect([slots.size, slots.has("b"), slots.slotOf("d")]).toEqual([3, false, 1]);
    expect([...slots.keys()]).toEqual(["a", "c", "d"]);
    slots.clear();
    expect([slots.size, slots.take("e")]).toEqual([0, 0]);
  });
});

describe("strings inline in fixed-width rows", () => {
  it("gives back what was set, past growth, and a string too long or too wide whole", () => {
    const strings = new InlineStrings(8, 2);
    strings.set(0, "abc");
    strings.set(1, "latin-é");
    strings.grow(4);
    strings.set(2, "much longer than eight");
    strings.set(3, "→ wide");
    expect([0, 1, 2, 3].map((s) => strings.get(s))).toEqual([
      "abc",
      "latin-é",
      "much longer than eight",
      "→ wide",
    ]);
    strings.set(2, "short");
    expect(strings.get(2)).toBe("short");
    strings.set(0, "");
    expect(strings.get(0)).toBe("");
    expect(() => new InlineStrings(300, 1)).toThrow(RangeError);
  });
});
