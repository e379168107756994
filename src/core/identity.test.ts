import { describe, expect, it } from "vitest";
import {
  fieldDigests,
  instanceFingerprint,
  markerOwner,
  valueDigest,
  withoutPersonalData,
} from "./identity.js";

describe("instanceFingerprint", () => {
  it("is one fingerprint per tinyPM whatever the spelling, and never the URL", () => {
    const a = instanceFingerprint("http://tinypm.example.com/tinypm/api");
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(instanceFingerprint("HTTP://TinyPM.example.com/tinypm/api/")).toBe(a);
    expect(instanceFingerprint("http://tinypm.example.com/other/api")).not.toBe(a);
    expect(instanceFingerprint("http://127.0.0.1:4001/api")).not.toBe(
      instanceFingerprint("http://127.0.0.1:4002/api"),
    );
    expect(a).not.toContain("example");
  });
});

describe("markerOwner", () => {
  const job = { name: "widgets", instance: "aaaa", project: "1" };
  const m = {
    job: "widgets",
    origin: "tinypm" as const,
    originKind: "story" as const,
    originId: "1",
  };

  it("tells ours, foreign and none apart by job, instance and project", () => {
    expect(markerOwner(undefined, job)).toBe("none");
    expect(markerOwner({ ...m, instance: "aaaa", project: "1" }, job)).toBe("ours");
    expect(markerOwner({ ...m, job: "w8", instance: "aaaa", project: "1" }, job)).toBe("foreign");
    expect(markerOwner({ ...m, instance: "bbbb", project: "1" }, job)).toBe("foreign");
    expect(markerOwner({ ...m, instance: "aaaa", project: "2" }, job)).toBe("foreign");
  });

  it("reads a version-1 marker (job only) as this job's", () => {
    expect(markerOwner(m, job)).toBe("ours");
    expect(markerOwner({ ...m, job: "other" }, job)).toBe("foreign");
  });
});

describe("digests", () => {
  it("are short, stable across key order, and equal for absent and null", () => {
    expect(valueDigest({ a: 1, b: [2] })).toBe(valueDigest({ b: [2], a: 1 }));
    expect(valueDigest(undefined)).toBe(valueDigest(null));
    expect(valueDigest("x")).not.toBe(valueDigest("y"));
    expect(fieldDigests({ title: "T" }, ["title", "estimate"])).toEqual({
      title: valueDigest("T"),
      estimate: valueDigest(undefined),
    });
  });
});

describe("withoutPersonalData", () => {
  it("drops emails everywhere and names beside a login or id", () => {
    const meta = {
      acceptingUser: { id: "5", login: "erin", name: "Erin Example", email: "e@example.com" },
      timeEntries: [{ user: { name: "Only A Name" }, email: "x@example.com", hours: 1 }],
      note: "kept",
    };
    expect(withoutPersonalData(meta)).toEqual({
      acceptingUser: { id: "5", login: "erin" },
      timeEntries: [{ user: { name: "Only A Name" }, hours: 1 }],
      note: "kept",
    });
  });
});
