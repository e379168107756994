import { describe, expect, it } from "vitest";
import type { WorkItem } from "./model.js";
import { tinypmStory } from "../../test/support/work-items.js";
import { JsonPack } from "./json-pack.js";

function item(n: number): WorkItem {
  return tinypmStory(String(n), {
    description: `Zeile ${n}: «grüße» 🚀 ${"as a user I want ".repeat(n % 7)}`,
    estimate: n / 4,
    assignees: [{ login: `user${n % 5}`, name: "Ann Ö", email: undefined }],
    labels: n % 2 === 0 ? ["ui", "größe"] : [],
    comments: [
      { id: `c${n}`, author: { login: "bob" }, createdAt: "2024-01-01T10:00:00Z", body: "ok" },
    ],
    timeEntries: [{ id: `t${n}`, user: { login: "ann" }, date: "2024-01-02", hours: 1.25 }],
    metadata: { nested: { list: [1, "two", null, true] } },
    richDescription: {
      separator: "\n",
      blocks: [{ text: "a", rich: { type: "paragraph", content: [] }, lost: [] }],
    },
  });
}

describe("a pack of plain data", () => {
  it("gives every item back equal, across sealed chunks and the open one, in any order", () => {
    const pack = new JsonPack<WorkItem>();
    const items = Array.from({ length: 700 }, (_, n) => item(n));
    const slots = items.map((i) => pack.add(i));
    expect(new Set(slots).size).toBe(700);
    for (const at of [699, 0, 512, 255, 256, 3, 698, 300])
      expect(pack.get(slots[at]!)).toEqual(items[at]);
    for (const [n, slot] of slots.entries()) expect(pack.get(slot)).toEqual(items[n]);
  });

  it("reads an item twice in a row as the same object, and an item added later too", () => {
    const pack = new JsonPack<WorkItem>();
    const a = pack.add(item(1));
    expect(pack.get(a)).toBe(pack.get(a));
    const b = pack.add(item(2));
    expect(pack.get(b)).toEqual(item(2));
    expect(pack.get(a)).toEqual(item(1));
  });

  it("takes far less than the items' JSON once chunks are sealed", () => {
    const pack = new JsonPack<WorkItem>();
    let json = 0;
    for (let n = 0; n < 1024; n++) {
      const i = item(n);
      json += JSON.stringify(i).length;
      pack.add(i);
    }
    expect(pack.bytes).toBeLessThan(json / 4);
  });

  it("refuses a slot it never gave", () => {
    const pack = new JsonPack<WorkItem>();
    for (let n = 0; n < 300; n++) pack.add(item(n));
    expect(() => pack.get(1000)).toThrow(RangeError);
    expect(() => pack.get(299 + 1)).toThrow(RangeError);
  });
});
