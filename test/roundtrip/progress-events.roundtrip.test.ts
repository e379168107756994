import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SyncEvent } from "../../src/sync/events.js";
import { startWorld, type World } from "./world.js";

let world: World;

beforeAll(async () => {
  world = await startWorld({ target: "github", generate: "stories=6,tasks=2,comments=0" });
});
afterAll(async () => {
  await world.close();
});

describe("the events a progress display reads", () => {
  it("announce the run's total before the first phase of the writes", async () => {
    const events: SyncEvent[] = [];
    const report = await world.run("migrate", { onEvent: (e) => events.push(e) });
    const firstWritePhase = events.findIndex(
      (e) => e.type === "phase" && /^(creating|updating|deleting)/.test(e.phase),
    );
    expect(firstWritePhase).toBeGreaterThan(0);
    const totalAt = events.findIndex((e) => e.type === "progress");
    expect(totalAt).toBeGreaterThanOrEqual(0);
    // A display that paints on the phase change shows `creating stories · 0/N items`.
    expect(totalAt).toBeLessThan(firstWritePhase);
    const first = events[totalAt];
    expect(first?.type === "progress" ? first.total : undefined).toBe(6 + 6 * 2);
    expect(first?.type === "progress" ? first.done : undefined).toBe(0);
    // The report keeps what the run did, not what a display painted.
    const display = new Set(["phase", "progress", "read_progress", "request"]);
    expect(report.events.filter((e) => display.has(e.type))).toEqual([]);
    expect(report.events.filter((e) => e.type === "created")).toHaveLength(6 + 6 * 2);
    expect(events.filter((e) => e.type === "created")).toHaveLength(6 + 6 * 2);
  });
});
