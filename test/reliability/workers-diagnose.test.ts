import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
      at: "2026-11-24T10:00:02.000Z",
    },
    {
      seq: 3,
      job: "gh1",
      side: "target" as const,
      id: "12",
      field: "title" as const,
      value: "x",
      at: "2026-11-24T10:00:01.000Z",
    },
  ];
  const runs = [
    {
      id: "r1",
      job: "gh4",
      pid: 41,
      mode: "sync",
      startedAt: "2026-11-24T10:00:00.000Z",
      finishedAt: "2026-11-24T10:00:03.000Z",
      outcome: "ok",
    },
    { id: "r2", job: "gh1", pid: 42, startedAt: "2026-11-24T10:00:00.500Z" },
  ] as RunRecord[];

  it("keeps the link, both items, the pair's edits and its job's runs for each pair a problem names", async () => {
    const file = await writeDiagnosis(
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

  it("writes nothing when no problem names a pair", async () => {
    expect(await writeDiagnosis({ plan: ["gh4: exit 2"] }, sides, edits, runs)).toBeUndefined();
  });

  it("merges what the test recorded of the pair into one timeline, oldest first", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "tps-diagnose-logs-"));
    const line = (o: Record<string, unknown>): string => `${JSON.stringify(o)}\n`;
    const at = (s: string): string => `2026-11-24T10:00:${s}Z`;
    writeFileSync(
      join(logDir, "worker-41.log"),
      "tinypm-sync listening on http://127.0.0.1:1\n" +
        line({
          level: 20,
          time: at("02.500"),
          job: "gh4",
          tinypmId: "8004",
          targetId: "12",
          msg: "updated",
        }) +
        line({ level: 20, time: at("02.600"), job: "gh1", tinypmId: "8004", msg: "updated" }) +
        line({ level: 20, time: at("02.700"), job: "gh4", tinypmId: "4001", msg: "updated" }) +
        // HTTP lines carry no job: told by their path (the job's repository, the pair's ids).
        line({
          level: 20,
          time: at("02.800"),
          method: "PATCH",
          path: "/repos/acme/repo4/issues/12",
          msg: "http",
        }) +
        line({
          level: 20,
          time: at("02.810"),
          method: "PATCH",
          path: "/repos/acme/repo4/issues/120",
          msg: "http",
        }) +
        line({
          level: 20,
          time: at("02.820"),
          method: "PATCH",
          path: "/repos/acme/repo1/issues/12",
          msg: "http",
        }) +
        line({
          level: 20,
          time: at("02.830"),
          method: "GET",
          path: "/userstory/8004",
          msg: "http",
        }) +
        line({ level: 20, time: at("02.840"), method: "GET", path: "/task/8004", msg: "http" }),
    );
    const links = new Map([
      [
        "gh4 story 8004",
        [
          {
            at: at("02.900"),
            targetId: "12",
            baseTinypm: { status: "PENDING" },
            baseTarget: { status: "closed:completed" },
            updatedAt: at("02.800"),
          },
        ],
      ],
    ]);
    const file = await writeDiagnosis(
      { lostEdits: ['gh4 story 8004.status: tinyPM shows "PENDING"'] },
      sides,
      edits,
      runs,
      {
        logDir,
        links,
        kills: [{ pid: 41, at: at("04.000") }],
        tinypmWrites: [
          {
            at: at("01.500"),
            by: "tool",
            op: "createStory",
            kind: "story",
            id: "8004",
            status: "PENDING",
          },
          { at: at("01.600"), by: "person", op: "replaceStory", kind: "story", id: "4001" },
        ],
        targetEvents: (job, id) => Promise.resolve([{ event: "closed", job, id }]),
      },
    );
    const d = JSON.parse(readFileSync(file ?? "", "utf8")) as {
      pairs: { timeline: string[]; targetEvents: unknown }[];
    };
    expect(d.pairs[0]?.timeline).toEqual([
      `${at("00.000")} run r1 starts on pid 41 (sync)`,
      `${at("01.500")} tinyPM store createStory by tool: name undefined, status "PENDING", description undefined`,
      `${at("02.000")} person edits target 12 #161: status = "ACCEPTED"`,
      `${at("02.500")} worker-41: {"tinypmId":"8004","targetId":"12","msg":"updated"}`,
      `${at("02.800")} worker-41: {"method":"PATCH","path":"/repos/acme/repo4/issues/12","msg":"http"}`,
      `${at("02.830")} worker-41: {"method":"GET","path":"/userstory/8004","msg":"http"}`,
      `${at("02.900")} link bases now tinyPM {"status":"PENDING"} target {"status":"closed:completed"}`,
      `${at("03.000")} run r1 ends on pid 41: ok`,
      `${at("04.000")} SIGKILL pid 41`,
    ]);
    expect(d.pairs[0]?.targetEvents).toEqual([{ event: "closed", job: "gh4", id: "12" }]);
  });
});
