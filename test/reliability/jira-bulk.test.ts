import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReliabilityWorld, type ReliabilityWorld } from "./world.js";

/**
 * A migration into Jira creates its issues with Jira's bulk create, 50 at a time, stories first
 * (sub-tasks need their story's key); the same result as one by one, and nothing twice under
 * faults that hit the bulk call or what follows it.
 */
describe("migration into Jira through bulk create", () => {
  let world: ReliabilityWorld;
  beforeAll(async () => {
    world = await startReliabilityWorld({ target: "jira", generate: "stories=60,tasks=2" });
  });
  afterAll(() => world.close());

  const bulkCalls = (): number => world.target.stats().byRoute["POST /rest/api/3/issue/bulk"] ?? 0;

  it("makes one bulk call per 50 issues of a kind", async () => {
    world.reset();
    const report = await world.run("migrate");
    expect(report.summary).toMatchObject({ created: 180, failed: 0 });
    // 60 stories: 2 calls; 120 sub-tasks: 3 calls; and up to 8 single creates while the adapter
    // learns the workflow (one per issue type and status it has not created into yet).
    expect(bulkCalls()).toBeGreaterThanOrEqual(5);
    expect(bulkCalls()).toBeLessThanOrEqual(5 + 8);
    const again = await world.run("sync");
    expect(again.summary).toMatchObject({ created: 0, failed: 0 });
  });

  it.each(["500:0.2@POST /rest/api/3/issue/bulk", "429=0.05:0.2", "reset:0.1", "truncate:0.1"])(
    "creates every issue once under %s",
    async (faults) => {
      world.reset();
      world.target.setFaults(faults);
      const report = await world.run("migrate");
      world.target.setFaults("");
      expect(report.summary.failed).toBe(0);
      const tracker = world.targetTracker();
      try {
        const titles: string[] = [];
        for await (const item of tracker.list({})) titles.push(`${item.kind}:${item.title}`);
        expect(titles).toHaveLength(180);
        const again = await world.run("sync");
        expect(again.summary).toMatchObject({ created: 0, failed: 0 });
      } finally {
        await tracker.close();
      }
    },
  );
});
