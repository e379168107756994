import { describe, expect, it } from "vitest";
import { coversDetail, createListedDetails, sameXml } from "./listed-details.js";
import type { XmlNode } from "./wire.js";

const detail = (id: string, extra: XmlNode = {}): XmlNode => ({
  id,
  name: `Task ${id}`,
  status: { id: "2", name: "IN PROGRESS" },
  assignedUsers: "",
  comments: "",
  ...extra,
});
const summary = (id: string): XmlNode => ({
  id,
  name: `Task ${id}`,
  status: { id: "2", name: "IN PROGRESS" },
});

/** A detail reader over a fixed set of documents, counting the reads. */
function reader(docs: Record<string, XmlNode>) {
  const reads: string[] = [];
  return {
    reads,
    read: (id: string) => () => {
      reads.push(id);
      const node = docs[id];
      return Promise.resolve(node === undefined ? undefined : { node, from: "detail" });
    },
  };
}
const fromListed = (node: XmlNode) => ({ node, from: "listing" });

describe("sameXml / coversDetail", () => {
  it("compares children by name and lists in order; a listing may carry more", () => {
    expect(sameXml({ a: "1", b: ["x", "y"] }, { b: ["x", "y"], a: "1" })).toBe(true);
    expect(sameXml({ b: ["x", "y"] }, { b: ["y", "x"] })).toBe(false);
    expect(coversDetail({ ...detail("1"), iterationId: "3" }, detail("1"))).toBe(true);
    expect(coversDetail(summary("1"), detail("1"))).toBe(false);
  });
});

describe("createListedDetails", () => {
  it("reads one detail to probe, then uses complete listed elements as they are", async () => {
    const docs = { "1": detail("1"), "2": detail("2"), "3": detail("3") };
    const r = reader(docs);
    const lists = createListedDetails();
    const got = await Promise.all(
      ["1", "2", "3"].map((id) => lists.detail("task", detail(id), r.read(id), fromListed)),
    );
    expect(got.map((g) => g?.from)).toEqual(["detail", "listing", "listing"]);
    expect(r.reads).toEqual(["1"]);
    expect(lists.verdict("task")).toBe("complete");
  });

  it("reads every detail when the listing holds summaries", async () => {
    const r = reader({ "1": detail("1"), "2": detail("2") });
    const lists = createListedDetails();
    for (const id of ["1", "2"]) await lists.detail("task", summary(id), r.read(id), fromListed);
    expect(r.reads).toEqual(["1", "2"]);
    expect(lists.verdict("task")).toBe("summary");
  });

  it("falls back at once when a listed element lacks a field, for the rest of the read", async () => {
    const r = reader({ "1": detail("1"), "2": detail("2"), "3": detail("3") });
    const lists = createListedDetails();
    await lists.detail("task", detail("1"), r.read("1"), fromListed);
    const lacking = detail("2");
    delete lacking.comments;
    const second = await lists.detail("task", lacking, r.read("2"), fromListed);
    const third = await lists.detail("task", detail("3"), r.read("3"), fromListed);
    expect([second?.from, third?.from]).toEqual(["detail", "detail"]);
    expect(r.reads).toEqual(["1", "2", "3"]);
    expect(lists.verdict("task")).toBe("summary");
  });

  it("falls back when a complete-looking element does not validate", async () => {
    const r = reader({ "1": detail("1"), "2": detail("2") });
    const lists = createListedDetails();
    await lists.detail("task", detail("1"), r.read("1"), fromListed);
    const got = await lists.detail("task", detail("2"), r.read("2"), () => undefined);
    expect(got?.from).toBe("detail");
  });

  it("probes again when the probe's item is gone, and decides per kind", async () => {
    const r = reader({ "2": detail("2"), "3": detail("3") });
    const lists = createListedDetails();
    expect(await lists.detail("task", detail("1"), r.read("1"), fromListed)).toBeUndefined();
    await lists.detail("task", detail("2"), r.read("2"), fromListed);
    await lists.detail("task", detail("3"), r.read("3"), fromListed);
    expect(r.reads).toEqual(["1", "2"]);
    expect(lists.verdict("story")).toBe("unknown");
  });
});
