import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportProject } from "../../src/adapters/tinypm/archive.js";
import { normalizeArchiveIds } from "../../src/adapters/tinypm/archive-ids.js";
import { addDays } from "../../src/mapping/iterations.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startWorld, type World } from "./world.js";

describe.each([
  { target: "github", name: "GitHub", deployment: "cloud" },
  { target: "jira", name: "Jira", deployment: "cloud" },
  { target: "jira", name: "Jira Data Center", deployment: "datacenter" },
] as const)("round trip tinyPM → $name → tinyPM", ({ target, name, deployment }) => {
  let world: World;
  let destination: ReferenceServer;

  beforeAll(async () => {
    world = await startWorld({
      target,
      generate: "stories=25,tasks=3,comments=2",
      jira: { deployment },
    });
    destination = await startReferenceServer({ generate: "empty", seed: 1 });
  });
  afterAll(async () => {
    await world.close();
    await destination.close();
  });

  it(`migrates the project to ${name} with no failures`, async () => {
    const report = await world.run("migrate");
    expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
    expect(report.summary.created).toBeGreaterThan(0);
    expect(report.summary.failed).toBe(0);
  });

  it("makes zero writes when run again", async () => {
    const before = world.target.server.stats().writes;
    const tinypmBefore = world.tinypm.stats().writes;
    const report = await world.run("sync");
    expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
    expect(report.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    expect(world.target.server.stats().writes).toBe(before);
    expect(world.tinypm.stats().writes).toBe(tinypmBefore);
  });

  it.runIf(target === "github")("gives each milestone its iteration's end date", async () => {
    // GitHub stores due dates as midnight US Pacific; the end dates must still read back as sent.
    const tinypm = world.tinypmTracker();
    const github = world.targetTracker();
    try {
      const ends = new Map<string, string | undefined>();
      for (const it of await tinypm.listIterations()) {
        const end = it.endDate ?? addDays(it.startDate ?? "", it.durationDays ?? 0);
        ends.set(it.name, end);
      }
      const milestones = await github.listIterations();
      expect(milestones.length).toBeGreaterThan(0);
      for (const m of milestones) expect([m.name, m.endDate]).toEqual([m.name, ends.get(m.name)]);
    } finally {
      await tinypm.close();
      await github.close();
    }
  });

  it.runIf(target === "github")("reads only 304s on GitHub when synced once more", async () => {
    const before = world.target.server.stats();
    const tinypmBefore = world.tinypm.stats().writes;
    const report = await world.run("sync");
    const after = world.target.server.stats();
    expect(report.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    expect(after.requests - before.requests).toBeGreaterThan(0);
    expect(after.notModified - before.notModified).toBe(after.requests - before.requests);
    expect(after.writes).toBe(before.writes);
    expect(world.tinypm.stats().writes).toBe(tinypmBefore);
  });

  it("brings the same project back into an empty tinyPM, ids aside", async () => {
    const report = await world.run("migrate", {
      name: "back",
      direction: "to-tinypm",
      // Another job's issues are never imported unless the job names it (issue 13).
      importFrom: ["widgets"],
      tinypmServer: destination,
    });
    expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
    const original = normalizeArchiveIds(
      await exportProject({ baseUrl: world.tinypm.url, token: world.tinypm.token, projectId: 1 }),
    );
    const copy = normalizeArchiveIds(
      await exportProject({ baseUrl: destination.url, token: destination.token, projectId: 1 }),
    );
    expect(copy.stories).toEqual(original.stories);
  });
});
