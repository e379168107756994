import { describe, expect, it } from "vitest";
import { ConflictError } from "./errors.js";
import { sameFieldValue, staleError, staleFields } from "./stale-fields.js";

const same = sameFieldValue;

describe("staleFields", () => {
  const base = { title: "A", description: "text", labels: ["x", "y"], status: "open" };

  it("names a field being written that changed since the base", () => {
    const fresh = { ...base, description: "a person's text" };
    expect(staleFields({ description: "the run's text" }, base, fresh, same)).toEqual([
      "description",
    ]);
  });

  it("ignores a field the update does not write", () => {
    const fresh = { ...base, title: "B" };
    expect(staleFields({ description: "the run's text" }, base, fresh, same)).toEqual([]);
  });

  it("ignores a field already holding the value being written (a retried write)", () => {
    const fresh = { ...base, description: "the run's text" };
    expect(staleFields({ description: "the run's text" }, base, fresh, same)).toEqual([]);
  });

  it("compares a clear (undefined) as a value: an empty description is none", () => {
    expect(
      staleFields({ description: undefined }, base, { ...base, description: "" }, same),
    ).toEqual([]);
    expect(
      staleFields({ description: undefined }, base, { ...base, description: "new" }, same),
    ).toEqual(["description"]);
  });

  it("compares labels and users as sets, ignoring case when the system does", () => {
    const fresh = { ...base, labels: ["Y", "X"] };
    expect(staleFields({ labels: ["z"] }, base, fresh, same)).toEqual(["labels"]);
    const folded = (n: Parameters<typeof same>[0], a: object, b: object) =>
      same(n, a, b, { foldCase: true });
    expect(staleFields({ labels: ["z"] }, base, fresh, folded)).toEqual([]);
    expect(
      same(
        "assignees",
        { assignees: [{ login: "Ann" }] },
        { assignees: [{ login: "ann" }] },
        {
          foldCase: true,
        },
      ),
    ).toBe(true);
  });
});

describe("staleError", () => {
  it("is a ConflictError naming the item, the fields and what to do", () => {
    const e = staleError({
      system: "github",
      what: "GitHub issue #7",
      id: "7",
      operation: "issues.update",
      fields: ["title", "status"],
    });
    expect(e).toBeInstanceOf(ConflictError);
    expect(e.message).toBe(
      "GitHub issue #7 changed since it was planned against (title, status); nothing was written.",
    );
    expect(e.hint).toBe("Run the sync again: it re-plans against the current content.");
    expect(e.details).toMatchObject({ system: "github", id: "7", fields: ["title", "status"] });
  });
});
