import { describe, expect, it } from "vitest";
import { StateError } from "../../core/errors.js";
import {
  decodeCheckpoint,
  encodeCheckpoint,
  seenInWindow,
  sinceFor,
  versionKey,
} from "./checkpoint.js";

describe("checkpoint", () => {
  it("round-trips since, etag and seen", () => {
    const cp = { since: "2026-01-01T00:00:00Z", etag: 'W/"abc"', seen: "1@2026-01-01T00:00:01Z#x" };
    expect(decodeCheckpoint(encodeCheckpoint(cp))).toEqual(cp);
  });

  it("round-trips the probe with its ETag, and drops it without one", () => {
    const cp = { since: "2026-01-01T00:00:00Z", etag: 'W/"p"', seen: undefined, probe: "newest" };
    expect(decodeCheckpoint(encodeCheckpoint(cp as never))).toEqual(cp);
    expect(encodeCheckpoint({ since: cp.since, probe: "newest" })).not.toHaveProperty("probe");
  });

  it("refuses a checkpoint that is not ours", () => {
    expect(() => decodeCheckpoint({ since: "yesterday" })).toThrow(StateError);
  });
});

describe("overlap", () => {
  it("steps back a few seconds from the watermark", () => {
    expect(sinceFor("2026-01-01T00:00:10Z")).toBe("2026-01-01T00:00:05Z");
  });

  it("shrinks the window to the watermark's second once read well after it", () => {
    const max = "2026-01-01T00:00:10.400Z";
    // Read 5 s after (GitHub's Date has whole seconds): still the whole window.
    expect(sinceFor(max, Date.parse("2026-01-01T00:00:15Z"))).toBe("2026-01-01T00:00:05Z");
    // Read 6 s and more after: every issue stamped before the watermark's second was listed.
    expect(sinceFor(max, Date.parse("2026-01-01T00:00:17Z"))).toBe("2026-01-01T00:00:10Z");
    expect(sinceFor(max, Date.parse("2026-01-01T01:00:00Z"))).toBe("2026-01-01T00:00:10Z");
  });

  it("keeps only the versions inside the window", () => {
    const keys = [
      "1@2026-01-01T00:00:04Z#a",
      "2@2026-01-01T00:00:05Z#b",
      "3@2026-01-01T00:00:09Z#c",
    ];
    expect(seenInWindow(keys, "2026-01-01T00:00:05Z")).toBe(
      "2@2026-01-01T00:00:05Z#b,3@2026-01-01T00:00:09Z#c",
    );
  });

  it("tells two edits within one second apart", () => {
    const a = versionKey({ number: 1, updated_at: "2026-01-01T00:00:00Z", title: "a" } as never);
    const b = versionKey({ number: 1, updated_at: "2026-01-01T00:00:00Z", title: "b" } as never);
    expect(a).not.toBe(b);
  });
});
