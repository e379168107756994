import type { ItemRef } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { RunReport } from "../../src/sync/engine.js";
import { listAll } from "./snapshot.js";
import { targetView, tinypmView, type TargetView } from "./snapshot.js";
import type { ReliabilityWorld } from "./world.js";

/** What one scenario leaves behind, to compare with a clean run's. */
export interface ScenarioResult {
  readonly afterMigrate: TargetView;
  readonly afterSync: TargetView;
  readonly tinypm: unknown;
  readonly reports: readonly RunReport[];
  /** Faults the servers injected, by kind (both servers, both runs). */
  readonly faults: Record<string, number>;
}

/** The fault kinds of the issue; `403-secondary` only where GitHub answers. */
export function faultKinds(target: "github" | "jira"): string[] {
  const kinds = ["500", "502", "503", "429=0.05", "429-bare", "reset", "timeout", "truncate"];
  return target === "github"
    ? [...kinds, "403-secondary=0.05", "latency=30"]
    : [...kinds, "latency=30"];
}

function addFaults(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

export async function withTracker<T>(tracker: Tracker, fn: (t: Tracker) => Promise<T>): Promise<T> {
  try {
    return await fn(tracker);
  } finally {
    await tracker.close();
  }
}

/** One edit on each side, made without faults: the sync must carry both across. */
export async function editBothSides(world: ReliabilityWorld): Promise<void> {
  await withTracker(world.tinypmTracker(), async (t) => {
    const stories = (await listAll(t)).filter((i) => i.kind === "story");
    const first = stories[0];
    if (first === undefined) throw new Error("no tinyPM story to edit");
    await t.update(
      { kind: "story", id: first.id },
      { set: { title: `${first.title} (edited in tinyPM)` }, base: first },
    );
  });
  await withTracker(world.targetTracker(), async (g) => {
    const items = (await listAll(g)).filter((i) => i.kind === "story");
    const last = items.sort((a, b) => originId(b) - originId(a))[0];
    if (last === undefined) throw new Error("no target story to edit");
    const ref: ItemRef = { kind: last.kind, id: last.id };
    await g.update(ref, { set: { description: "Edited on the target side." }, base: last });
  });
}

function originId(item: { marker?: { originId: string } | undefined }): number {
  return Number(item.marker?.originId ?? 0);
}

/**
 * migrate (with faults) → edits on both sides (no faults) → sync (with faults); `faults` is a
 * spec for both servers, or "" for the clean reference run.
 */
export async function runScenario(
  world: ReliabilityWorld,
  spec: { tinypm: string; target: string },
): Promise<ScenarioResult> {
  world.reset();
  const faults: Record<string, number> = {};
  const reports: RunReport[] = [];
  const withFaults = async (fn: () => Promise<RunReport>): Promise<void> => {
    world.tinypm.setFaults(spec.tinypm);
    world.target.setFaults(spec.target);
    try {
      reports.push(await fn());
    } finally {
      world.tinypm.setFaults("");
      world.target.setFaults("");
    }
  };
  await withFaults(() => world.run("migrate"));
  const afterMigrate = await withTracker(world.targetTracker(), targetView);
  await editBothSides(world);
  await withFaults(() => world.run("sync"));
  // Stats count from the reset on: both runs' faults, none from the fault-free reads.
  addFaults(faults, world.tinypm.stats().faults);
  addFaults(faults, world.target.stats().faults);
  const afterSync = await withTracker(world.targetTracker(), targetView);
  return { afterMigrate, afterSync, tinypm: await tinypmView(world.tinypm), reports, faults };
}
