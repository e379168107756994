import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { LinkRecord, RunRecord } from "../../src/state/store.js";
import type { JobSides } from "./workers-checks.js";
import { writeDiagnosis } from "./workers-diagnose.js";

const item = (system: "tinypm" | "github", id: string, status: string): WorkItem => ({
  system,
  kind: "story",
  id,
  title: "T",
  status,
  assignees: [],
  labels: [],
  comments: [],
  timeEntries: [],
  metadata: {},
});

describe("writeDiagnosis", () => {
  const link = { job: "gh4", kind: "story", tinypmId: "8004", targetId: "12" } as LinkRecord;
  const sides: JobSides[] = [
    {
      job: "gh4",
      system: "github",
      tinypm: new Map([["story:8004", item("tinypm", "8004", "PENDING")]]),
      target: new Map([["story:12", item("github", "12", "closed:completed")]]),
      links: [link],
      conflicts: [],
    },
  ];
  const edits = [
    {
      seq: 161,
      job: "gh4",
      side: "target" as const,
      id: "12",
      field: "status" as const,
      value: "ACCEPTED",
    },
    { seq: 3, job: "gh1", side: "target" as const, id: "12", field: "title" as const, value: "x" },
  ];
  const runs = [
    { id: "r1", job: "gh4" },
    { id: "r2", job: "gh1" },
  ] as RunRecord[];

  it("keeps the link, both items, the pair's edits and its job's runs for each pair a problem names", () => {
    const file = writeDiagnosis(
      { lostEdits: ['gh4 story 8004.status: tinyPM shows "PENDING"'], duplicates: [] },
      sides,
      edits,
      runs,
    );
    expect(file).toBeDefined();
    const d = JSON.parse(readFileSync(file ?? "", "utf8")) as {
      pairs: {
        link: LinkRecord;
        tinypm: WorkItem;
        target: WorkItem;
        edits: { seq: number }[];
        runs: { id: string }[];
      }[];
    };
    expect(d.pairs).toHaveLength(1);
    expect(d.pairs[0]?.link.targetId).toBe("12");
    expect(d.pairs[0]?.tinypm.status).toBe("PENDING");
    expect(d.pairs[0]?.target.status).toBe("closed:completed");
    expect(d.pairs[0]?.edits.map((e) => e.seq)).toEqual([161]);
    expect(d.pairs[0]?.runs.map((r) => r.id)).toEqual(["r1"]);
  });

  it("writes nothing when no problem names a pair", () => {
    expect(writeDiagnosis({ plan: ["gh4: exit 2"] }, sides, edits, runs)).toBeUndefined();
  });
});
