import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import { tinypmStory } from "../../../test/support/work-items.js";
import { lightener } from "./light-items.js";

function item(n: number): WorkItem {
  return tinypmStory(String(n), {
    description: `<p>Story ${n}: «ünïcode» ${"detail ".repeat(n % 9)}</p>`,
    comments: [
      { id: `c${n}`, author: { login: "ann" }, createdAt: "2024-01-01T10:00:00Z", body: `c ${n}` },
    ],
    timeEntries: [{ id: `t${n}`, user: { login: "bob" }, date: "2024-01-02", hours: n / 2 }],
    assignees: [{ login: "ann", name: "Ann" }],
    labels: ["ui"],
    estimate: n,
  });
}

describe("a migration's read, each item's heavy parts packed", () => {
  it("reads back every item equal, in any order, however it is copied", () => {
    const light = lightener();
    const items = Array.from({ length: 300 }, (_, n) => item(n));
    const read = items.map(light);
    for (const at of [299, 0, 150, 64, 63, 7, 298]) expect(read[at]).toEqual(items[at]);
    for (const [n, i] of read.entries()) {
      expect(i).toEqual(items[n]);
      // A spread, Object.entries and JSON see every part, as they saw the data.
      expect({ ...i }).toEqual(items[n]);
      expect(Object.fromEntries(Object.entries(i))).toEqual(items[n]);
      expect(JSON.parse(JSON.stringify(i))).toEqual(JSON.parse(JSON.stringify(items[n])));
      expect(Object.keys(i)).toEqual(Object.keys(items[n]!));
    }
    expect({ ...read[5]!, description: "changed" }.description).toBe("changed");
  });

  it("holds the heavy parts in no property of the item's own", () => {
    const [i] = [item(4)].map(lightener());
    for (const part of ["description", "comments", "timeEntries"]) {
      const d = Object.getOwnPropertyDescriptor(i, part);
      expect(d?.enumerable).toBe(true);
      expect(d && "value" in d).toBe(false);
    }
    expect(Object.getOwnPropertyDescriptor(i, "title")?.value).toBe("Story 4");
  });

  it("leaves an item with nothing heavy as it is, and absent parts absent", () => {
    const light = lightener();
    const bare = tinypmStory("1", { description: undefined, comments: [], timeEntries: [] });
    expect(light(bare)).toBe(bare);
    const { description: _, ...noDescription } = item(2);
    const read = light(noDescription);
    expect("description" in read).toBe(false);
    expect(read).toEqual(noDescription);
  });

  it("reads each part through one getter shared by every item, no closure of its own", () => {
    const light = lightener();
    const [a, b] = [item(1), item(2)].map(light);
    const getter = (i: object): unknown =>
      (Object.getOwnPropertyDescriptor(i, "description") as { get?: unknown } | undefined)?.get;
    expect(typeof getter(a!)).toBe("function");
    expect(getter(a!)).toBe(getter(b!));
  });
});
