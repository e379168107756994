import { describe, expect, it } from "vitest";
import { toUserRef } from "./map.js";

describe("a tinyPM user reference", () => {
  it("is one shared, frozen object per person, however often it is read", () => {
    const a = toUserRef({ id: " 7 ", login: "ann", name: "Ann Lee", email: "ann@example.com" });
    const b = toUserRef({ id: "7", login: "ann", name: "Ann Lee", email: "ann@example.com" });
    expect(a).toEqual({ id: "7", login: "ann", name: "Ann Lee", email: "ann@example.com" });
    expect(b).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it("keeps references that differ in any part apart", () => {
    const a = toUserRef({ id: "7", login: "ann" });
    expect(toUserRef({ id: "7", login: "ann", name: "Ann" })).not.toBe(a);
    expect(toUserRef({ id: "8", login: "ann" })).not.toBe(a);
    expect(toUserRef({ login: "ann" })).toEqual({ login: "ann" });
  });
});
