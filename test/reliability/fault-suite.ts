import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitCodeFor } from "../../src/core/errors.js";
import { faultKinds, runScenario, type ScenarioResult } from "./fault-scenario.js";
import { createFigures } from "./figures.js";
import { duplicates } from "./snapshot.js";
import { SHORT_RETRY, startReliabilityWorld, type ReliabilityWorld } from "./world.js";

/** Every fault kind at 10 % on both servers: migrate, then sync, equal to a clean run. */
export function describeFaults(target: "github" | "jira"): void {
  const figures = createFigures(`faults-${target}`);

  describe(`faults at 10 % per kind, tinyPM ⇄ ${target}`, () => {
    let world: ReliabilityWorld;
    let clean: ScenarioResult;

    beforeAll(async () => {
      world = await startReliabilityWorld({ target, generate: "stories=10,tasks=2,comments=1" });
      clean = await runScenario(world, { tinypm: "", target: "" });
    });
    afterAll(async () => {
      figures.save();
      await world.close();
    });

    it("the clean run has something to compare with", () => {
      expect(Object.keys(clean.afterMigrate.counts).length).toBeGreaterThan(8);
      expect(duplicates(clean.afterSync)).toEqual([]);
    });

    it.each(faultKinds(target))("survives %s: same result as a clean run", async (kind) => {
      const spec = `${kind}:0.1`;
      // tinyPM has no secondary limit: that kind goes to the GitHub sandbox only.
      const onTinypm = kind.startsWith("403-secondary") ? "" : spec;
      const r = await runScenario(world, { tinypm: onTinypm, target: spec });
      const injected = Object.values(r.faults).reduce((a, b) => a + b, 0);
      expect(injected).toBeGreaterThan(0);
      for (const report of r.reports) {
        expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
      }
      const missing = Object.keys(clean.afterSync.counts).filter((k) => !(k in r.afterSync.counts));
      figures.add({ duplicates: duplicates(r.afterSync).length, itemsLost: missing.length });
      expect(missing).toEqual([]);
      expect(duplicates(r.afterSync)).toEqual([]);
      expect(r.afterMigrate).toEqual(clean.afterMigrate);
      expect(r.afterSync).toEqual(clean.afterSync);
      expect(r.tinypm).toEqual(clean.tinypm);
      figures.add({ faultsInjected: injected, faultRuns: 2 });
    });

    it("stops with exit 3 while the target stays down, and a later run completes", async () => {
      world.reset();
      world.target.setFaults("503");
      const error: unknown = await world.run("migrate", { policy: SHORT_RETRY }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(exitCodeFor(error)).toBe(3);
      expect((error as Error).message).toMatch(/503|failed on the server|Service Unavailable/i);
      figures.add({ faultsInjected: world.target.stats().faults["503"] ?? 0, faultRuns: 1 });
      world.target.setFaults("");
      const report = await world.run("migrate");
      expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
      const r = await world.run("sync");
      expect(r.summary).toMatchObject({ created: 0, failed: 0 });
    });
  });
}
