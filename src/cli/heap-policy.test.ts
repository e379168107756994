import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, heapFlag } from "./heap-policy.js";

describe("heapFlag", () => {
  it("sets the growth factor when the process was started without heap sizing", () => {
    expect(heapFlag([], undefined)).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapFlag(["--enable-source-maps"], "--no-warnings")).toBe("--heap-growing-percent=60");
  });

  it("leaves a sizing chosen on the command line or in NODE_OPTIONS as it is", () => {
    expect(heapFlag(["--max-old-space-size=4096"], undefined)).toBeUndefined();
    expect(heapFlag(["--heap-growing-percent=0"], undefined)).toBeUndefined();
    expect(heapFlag([], "--no-warnings --max_old_space_size=2048")).toBeUndefined();
    expect(heapFlag([], "--max-heap-size=512")).toBeUndefined();
  });
});
