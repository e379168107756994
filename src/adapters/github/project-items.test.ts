import { describe, expect, it } from "vitest";
import { PayloadInvalidError } from "../../core/errors.js";
import { readItemsPage } from "./project-items.js";

const value = {
  __typename: "ProjectV2ItemFieldSingleSelectValue",
  name: "Todo",
  field: { id: "F1" },
};
const item = (id: string, number: number, nodes: unknown = [value]): unknown => ({
  id,
  content: { id: `I_${String(number)}`, number },
  fieldValues: { nodes },
});
const page = (nodes: unknown[], next?: string): unknown => ({
  node: {
    items: {
      pageInfo: { hasNextPage: next !== undefined, endCursor: next ?? null },
      nodes,
    },
  },
});

describe("a page of a project's items, item by item", () => {
  it("sets apart an item whose own payload fails validation, under its issue, and reads the rest", () => {
    const r = readItemsPage(
      page([item("A", 1), item("B", 2, "haunted"), item("C", 3, [{ ...value, name: 7 }])], "c2"),
    );
    expect(r.items.map((i) => [i.id, i.number])).toEqual([["A", 1]]);
    expect(r.next).toBe("c2");
    expect([...r.unreadable.keys()]).toEqual([2, 3]);
    const error = r.unreadable.get(3);
    expect(error).toBeInstanceOf(PayloadInvalidError);
    expect(error?.message).toMatch(
      /^GitHub projectV2\.items answered an unexpected payload: issue #3's project item: fieldValues > nodes > 0 > name/,
    );
    expect(error?.hint).toMatch(/Open issue #3 on the project board and set its fields again/);
  });

  it("leaves out items that are no issue (a draft, a pull request) and null ones", () => {
    const r = readItemsPage(
      page([
        null,
        { id: "D", content: null, fieldValues: { nodes: [] } },
        { id: "P", content: {}, fieldValues: { nodes: [] } },
        item("A", 1),
      ]),
    );
    expect(r.items.map((i) => i.number)).toEqual([1]);
    expect(r.unreadable.size).toBe(0);
    expect(r.next).toBeNull();
  });

  it("fails the whole read on an item naming no issue number it can be told by", () => {
    const unnamed = { id: "X", content: { number: "12" }, fieldValues: { nodes: [] } };
    expect(() => readItemsPage(page([item("A", 1), unnamed]))).toThrow(
      /projectV2\.items answered an unexpected payload: a project item names no issue number it can be told by \(content > number/,
    );
  });

  it("fails the whole read on a page that is no list of items", () => {
    expect(() => readItemsPage({ node: { items: { nodes: "haunted" } } })).toThrow(
      PayloadInvalidError,
    );
    expect(() => readItemsPage({ node: null })).toThrow(/projectV2\.items/);
  });
});
