import { afterEach, describe, expect, it } from "vitest";
import { startGithubHarness, type GithubHarness } from "./github-setup.js";

let h: GithubHarness;
afterEach(async () => {
  await h.close();
});

async function rawMilestones(): Promise<{ title: string; due_on: string | null }[]> {
  const res = await fetch(`${h.sandbox.url}/repos/acme/widgets/milestones?state=all`, {
    headers: { authorization: `token ${h.sandbox.token}`, "user-agent": "test" },
  });
  return (await res.json()) as { title: string; due_on: string | null }[];
}

// US Pacific switches to PDT on 2030-03-10 and back to PST on 2030-11-03.
const DAYS = ["2030-03-09", "2030-03-10", "2030-03-11", "2030-11-02", "2030-11-03", "2030-11-04"];

describe("GitHub adapter: milestone due dates through GitHub's Pacific-midnight storage", () => {
  it("writes and reads back every end date unchanged across both daylight-saving switches", async () => {
    h = await startGithubHarness();
    for (const [i, day] of DAYS.entries()) {
      const made = await h.tracker.ensureIteration({ name: `S${i}`, endDate: day });
      expect(made.endDate).toBe(day);
    }
    // Stored as GitHub stores them: midnight Pacific of the intended day.
    const raw = await rawMilestones();
    expect(raw.map((m) => m.due_on)).toEqual([
      "2030-03-09T08:00:00Z",
      "2030-03-10T08:00:00Z",
      "2030-03-11T07:00:00Z",
      "2030-11-02T07:00:00Z",
      "2030-11-03T07:00:00Z",
      "2030-11-04T08:00:00Z",
    ]);
    // A fresh tracker (a later run) reads the same days.
    const again = await h.tracker2().listIterations();
    expect(again.map((m) => [m.name, m.endDate])).toEqual(DAYS.map((d, i) => [`S${i}`, d]));
  });

  it("ensuring the same iterations again writes nothing", async () => {
    h = await startGithubHarness();
    for (const [i, day] of DAYS.entries()) {
      await h.tracker.ensureIteration({ name: `S${i}`, endDate: day });
    }
    const writes = h.sandbox.stats().writes;
    const t = h.tracker2();
    for (const [i, day] of DAYS.entries()) {
      expect((await t.ensureIteration({ name: `S${i}`, endDate: day })).endDate).toBe(day);
    }
    expect(h.sandbox.stats().writes).toBe(writes);
  });
});
