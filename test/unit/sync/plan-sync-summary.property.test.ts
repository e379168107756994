import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemoryTracker } from "../../../src/adapters/memory/index.js";
import { createLanes } from "../../../src/gate/lanes.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { sqliteStateOver } from "../../../src/state/sqlite-state.js";
import { openSqliteStore } from "../../../src/state/sqlite-store.js";
import { runEngine, type EngineOptions } from "../../../src/sync/engine.js";
import type { PlanJob } from "../../../src/sync/plan/plan-input.js";

/**
 * `plan` (a dry run) and `sync` (the real run) summarise any plan identically: one outcome model
 * (src/sync/outcome.ts) counts both. Edits on either side, both (conflicts), new items on either
 * side and deletions on either side, against two in-memory trackers and a SQLite state.
 */

const STORIES = 5;
const STATUSES = ["PENDING", "ACCEPTED", "REJECTED"] as const;

const edit = fc.oneof(
  fc.record({ op: fc.constant("tinypm-title" as const), n: fc.nat(STORIES - 1), v: fc.nat(3) }),
  fc.record({ op: fc.constant("target-title" as const), n: fc.nat(STORIES - 1), v: fc.nat(3) }),
  fc.record({ op: fc.constant("both-title" as const), n: fc.nat(STORIES - 1), v: fc.nat(3) }),
  fc.record({ op: fc.constant("tinypm-status" as const), n: fc.nat(STORIES - 1), v: fc.nat(2) }),
  fc.record({ op: fc.constant("tinypm-new" as const), n: fc.nat(STORIES - 1), v: fc.nat(3) }),
  fc.record({ op: fc.constant("target-new" as const), n: fc.nat(STORIES - 1), v: fc.nat(3) }),
  fc.record({ op: fc.constant("tinypm-delete" as const), n: fc.nat(STORIES - 1), v: fc.nat(0) }),
);

const jobs: fc.Arbitrary<PlanJob> = fc.record({
  name: fc.constant("prop"),
  direction: fc.constantFrom(
    "both" as const,
    "both" as const,
    "to-target" as const,
    "to-tinypm" as const,
  ),
  // Parked conflicts (manual) the likeliest: they are what the summaries disagreed on before.
  conflicts: fc.constantFrom(
    "manual" as const,
    "manual" as const,
    "tinypm" as const,
    "target" as const,
  ),
  onDelete: fc.constantFrom("close" as const, "ignore" as const),
});

describe("plan and sync summarise a plan identically", () => {
  it("for any edits on either side", async () => {
    const mapping = loadMapping("mappings/github.yaml");
    // Which outcomes the generated runs met: the property must not hold only on empty plans.
    const met = { created: 0, updated: 0, conflicts: 0, deleted: 0, unchanged: 0 };
    await fc.assert(
      fc.asyncProperty(jobs, fc.array(edit, { maxLength: 8 }), async (job, edits) => {
        const dir = mkdtempSync(join(tmpdir(), "plan-sync-"));
        const store = openSqliteStore({ path: join(dir, "state.db") });
        try {
          const tinypm = createMemoryTracker({ system: "tinypm" });
          const target = createMemoryTracker({ system: "github" });
          const o = (extra: Partial<EngineOptions> = {}): EngineOptions => ({
            mode: "sync",
            job,
            targetSystem: "github",
            tinypm,
            target,
            mappingSpec: mapping,
            state: sqliteStateOver(store),
            lanes: createLanes({ limits: { tinypm: {}, github: {} } }),
            // A full read: deletions on either side are seen.
            fullScan: true,
            ...extra,
          });
          const ids: string[] = [];
          for (let n = 0; n < STORIES; n++) {
            const item = await tinypm.create({
              kind: "story",
              title: `Story ${n}`,
              status: "PENDING",
              assignees: [],
              labels: [],
            });
            ids.push(item.id);
          }
          await runEngine(o({ mode: "migrate", job: { ...job, direction: "to-target" } }));
          await runEngine(o());
          const deleted = new Set<string>();
          for (const e of edits) {
            const id = ids[e.n] ?? "";
            const link = [...store.links("prop")].find((l) => l.tinypmId === id);
            if (deleted.has(id)) continue;
            if (e.op === "tinypm-title" || e.op === "both-title")
              await tinypm.update({ kind: "story", id }, { set: { title: `T${e.v}` } });
            if (e.op === "tinypm-status")
              await tinypm.update(
                { kind: "story", id },
                { set: { status: STATUSES[e.v] ?? "PENDING" } },
              );
            if ((e.op === "target-title" || e.op === "both-title") && link !== undefined)
              await target.update(
                { kind: "story", id: link.targetId },
                { set: { title: `G${e.v}` } },
              );
            if (e.op === "tinypm-new")
              await tinypm.create({
                kind: "story",
                title: `New ${e.v}`,
                status: "PENDING",
                assignees: [],
                labels: [],
              });
            if (e.op === "target-new")
              await target.create({
                kind: "story",
                title: `Issue ${e.v}`,
                status: "open",
                assignees: [],
                labels: [],
              });
            if (e.op === "tinypm-delete") {
              await tinypm.delete({ kind: "story", id });
              deleted.add(id);
            }
          }
          const planned = await runEngine(o({ dryRun: true }));
          const ran = await runEngine(o());
          expect(ran.summary).toEqual(planned.summary);
          for (const k of Object.keys(met) as (keyof typeof met)[]) met[k] += ran.summary[k];
        } finally {
          store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40, seed: 3030, endOnFailure: true },
    );
    for (const n of Object.values(met)) expect(n).toBeGreaterThan(0);
  }, 240_000);
});
