import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { parseXml } from "./wire.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const limits = { maxBytes: 4_000_000, maxDepth: 10 };
const DOCUMENTS = 40;
const PADDING = 1_000_000;

/** Heap in use after a full collection, in MB. */
function liveMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1e6;
}

/**
 * Keeps one value of each of `DOCUMENTS` one-megabyte documents: the values must not keep their
 * documents alive (a V8 substring is a view into the string it was cut from).
 */
function keptMb(document: (i: number) => string): { kept: string[]; grew: number } {
  const before = liveMb();
  const kept: string[] = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    const { root } = parseXml(document(i), limits);
    const r = root as { email: string };
    kept.push(r.email);
  }
  return { kept, grew: liveMb() - before };
}

describe("values read from a tinyPM document", () => {
  // Each document's padding is its own text (not one shared string), as each response is.
  const padding = (i: number): string => `${String(i)}${"x".repeat(PADDING)}`;

  it("do not keep the document alive", () => {
    const { kept, grew } = keptMb(
      (i) => `<user><padding>${padding(i)}</padding><email>person${i}@example.com</email></user>`,
    );
    expect(kept[7]).toBe("person7@example.com");
    // 40 documents of 1 MB each would stay alive if the values were views into them.
    expect(grew).toBeLessThan(8);
  });

  it("decode entities as before", () => {
    const { root } = parseXml("<user><email>a&amp;b&#233;@example.com</email></user>", limits);
    expect(root).toEqual({ email: "a&bé@example.com" });
  });
});
