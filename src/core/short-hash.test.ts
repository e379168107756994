import { hash } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { hexHash } from "./short-hash.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const COUNT = 20_000;

/** Heap held by `COUNT` strings made by `make`, in bytes per string. */
function bytesEach(make: (i: number) => string): number {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: COUNT }, (_, i) => make(i));
  gc();
  gc();
  const grew = process.memoryUsage().heapUsed - before;
  expect(kept).toHaveLength(COUNT);
  return grew / COUNT;
}

describe("hexHash", () => {
  it("is the digest's first hex digits, as the hashes stored before it were", () => {
    for (const [algorithm, data, chars] of [
      ["sha256", "", 16],
      ["sha256", "a story", 16],
      ["sha1", "Looks good to me.\nOne nit", 16],
      ["sha256", "ü ✓ 日本", 10],
      ["sha256", "x", 8],
    ] as const)
      expect(hexHash(algorithm, data, chars)).toBe(hash(algorithm, data, "hex").slice(0, chars));
  });

  it("holds its own digits only, not the whole digest behind a slice", () => {
    const sliced = bytesEach((i) => hash("sha256", `item ${i}`, "hex").slice(0, 16));
    const own = bytesEach((i) => hexHash("sha256", `item ${i}`, 16));
    // A 16-digit string of its own is 32 bytes; a slice keeps its 64-digit parent (~112 bytes).
    expect(own).toBeLessThan(56);
    expect(sliced).toBeGreaterThan(own + 48);
  });
});
