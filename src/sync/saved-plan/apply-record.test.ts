import { describe, expect, it } from "vitest";
import { decodeApplyRecord, encodeApplyRecord, stateVerdict } from "./apply-record.js";

const made = (lastRunId: string | null) => ({ location: "state.db", lastRunId, links: 0 });
const run = (id: string, mode = "migrate") => ({ id, mode });

describe("stateVerdict", () => {
  it("is fresh when the job has not run since the plan", () => {
    expect(stateVerdict({ planId: "p", made: made(null), runs: [], record: undefined })).toEqual({
      kind: "fresh",
    });
    expect(
      stateVerdict({ planId: "p", made: made("r1"), runs: [run("r1")], record: undefined }),
    ).toEqual({ kind: "fresh" });
  });

  it("resumes when every run since is an unfinished apply of the plan, and is done when finished", () => {
    const runs = [run("r3"), run("r2"), run("r1")];
    const record = { planId: "p", runs: ["r2", "r3"], done: false };
    expect(stateVerdict({ planId: "p", made: made("r1"), runs, record }).kind).toBe("resume");
    expect(
      stateVerdict({ planId: "p", made: made("r1"), runs, record: { ...record, done: true } }),
    ).toEqual({ kind: "done", runId: "r3" });
  });

  it("names a run since that is not the plan's, and a state the plan's run is not in", () => {
    const runs = [run("r3", "sync"), run("r2"), run("r1")];
    const record = { planId: "p", runs: ["r2"], done: false };
    expect(stateVerdict({ planId: "p", made: made("r1"), runs, record })).toEqual({
      kind: "moved",
      runId: "r3",
      mode: "sync",
    });
    expect(stateVerdict({ planId: "p", made: made("r9"), runs, record: undefined }).kind).toBe(
      "other-state",
    );
    expect(
      stateVerdict({ planId: "p", made: made("r9"), runs, record: undefined, truncated: true }),
    ).toEqual({ kind: "moved", runId: "r1", mode: "migrate" });
  });

  it("round-trips through a checkpoint", () => {
    const r = { planId: "p", runs: ["a", "b"], done: true };
    expect(decodeApplyRecord(encodeApplyRecord(r))).toEqual(r);
    expect(decodeApplyRecord(undefined)).toBeUndefined();
  });
});
