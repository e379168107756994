import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import { createLanes } from "../../src/gate/lanes.js";
import type { RetryPolicy } from "../../src/gate/retry.js";
import { readAll, readChanges } from "../../src/sync/read/read.js";
import {
  runGates,
  startReliabilityWorld,
  type ReliabilityWorld,
  type TargetKind,
} from "./world.js";

/**
 * A scan of hundreds of requests at a fault rate where nearly every request-level attempt budget
 * is enough but a whole scan never gets through untouched (0.75^400 ≈ 1e-50): only retrying
 * request by request can complete it.
 */
const FAULTS = "500:0.07,503:0.07,reset:0.07,truncate:0.07";
const POLICY: RetryPolicy = {
  maxAttempts: 10,
  baseDelayMs: 2,
  maxDelayMs: 20,
  maxTotalMs: 120_000,
};

const byKey = (items: readonly WorkItem[]): Map<string, WorkItem> =>
  new Map(items.map((i) => [`${i.kind}:${i.id}`, i]));

describe.each<TargetKind>(["github", "jira"])("a long read under faults, tinyPM and %s", (kind) => {
  let world: ReliabilityWorld;
  beforeAll(async () => {
    world = await startReliabilityWorld({
      target: kind,
      generate: "stories=30,tasks=3,comments=1",
    });
    const report = await world.run("migrate");
    if (report.summary.failed > 0)
      throw new Error(`the clean migration failed ${report.summary.failed} items`);
  });
  afterAll(() => world.close());

  const lanes = () =>
    createLanes({
      limits: { tinypm: { concurrency: 4 }, [kind]: { concurrency: 4 } },
      policy: POLICY,
    });

  it("reads the whole tinyPM project, retrying each failed request on its own", async () => {
    // The request gate retries each failed request on its own (the lanes never repeat a read).
    const tracker = world.tinypmTracker(undefined, 2_000, runGates(kind, POLICY).tinypm);
    try {
      const clean = await readAll(lanes(), "tinypm", tracker);
      world.tinypm.setFaults(FAULTS);
      const before = Object.values(world.tinypm.stats().faults).reduce((a, b) => a + b, 0);
      const faulty = await readAll(lanes(), "tinypm", tracker);
      world.tinypm.setFaults("");
      const injected =
        Object.values(world.tinypm.stats().faults).reduce((a, b) => a + b, 0) - before;
      expect(injected).toBeGreaterThan(20);
      expect(clean.items.length).toBe(120);
      expect(byKey(faulty.items)).toEqual(byKey(clean.items));
    } finally {
      world.tinypm.setFaults("");
      await tracker.close();
    }
  });

  it(`reads the whole ${kind} feed, retrying each failed request on its own`, async () => {
    const tracker = world.targetTracker(2_000, runGates(kind, POLICY).target);
    try {
      const clean = await readChanges({
        lanes: lanes(),
        system: kind,
        tracker,
        from: undefined,
        extra: [],
      });
      world.target.setFaults(FAULTS);
      const faulty = await readChanges({
        lanes: lanes(),
        system: kind,
        tracker,
        from: undefined,
        extra: [],
      });
      world.target.setFaults("");
      expect(Object.values(world.target.stats().faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(
        0,
      );
      expect(clean.items.length).toBe(120);
      expect(byKey(faulty.items)).toEqual(byKey(clean.items));
      expect(faulty.complete).toBe(clean.complete);
    } finally {
      world.target.setFaults("");
      await tracker.close();
    }
  });
});
