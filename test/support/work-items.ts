// Builders of the items, copies and links that the planner's and the apply step's unit tests
// reason about: one kit instead of a copy per test file.
import { fileURLToPath } from "node:url";
import type { Marker, WorkItem } from "../../src/core/model.js";
import { compileMapping, type CompiledMapping } from "../../src/mapping/compile.js";
import { loadMapping } from "../../src/mapping/load.js";
import { jobMarker } from "../../src/sync/plan/marker.js";
import type { PlanJob } from "../../src/sync/plan/plan-input.js";
import type { LinkView } from "../../src/sync/plan/plan-types.js";
import { targetSnapshot, tinypmSnapshot, type Snapshot } from "../../src/sync/plan/snapshot.js";

/** A bundled mapping (`mappings/<target>.yaml`), compiled without users or iterations. */
export function bundledMapping(target: "github" | "jira"): CompiledMapping {
  const file = fileURLToPath(new URL(`../../mappings/${target}.yaml`, import.meta.url));
  return compileMapping(loadMapping(file));
}

/** A two-way job with manual conflicts, closing on delete. */
export const TEST_JOB: PlanJob = {
  name: "widgets",
  direction: "both",
  conflicts: "manual",
  onDelete: "close",
  instance: "0123456789abcdef",
  project: "1",
};

/** When the links the builders make were synced. */
export const SYNCED_AT = "2024-01-01T00:00:00.000Z";

/** A tinyPM story with only what every story has; `over` adds the fields a test is about. */
export function tinypmStory(id: string, over: Partial<WorkItem> = {}): WorkItem {
  return {
    system: "tinypm",
    kind: "story",
    id,
    title: `Story ${id}`,
    status: "PENDING",
    assignees: [],
    labels: [],
    comments: [],
    timeEntries: [],
    metadata: {},
    ...over,
  };
}

/**
 * The target copy of a tinyPM item as the mapping sends it (no comments or time entries), with
 * the target's system and id; `over` changes it as the target or a person did.
 */
export function targetCopy(
  mapping: CompiledMapping,
  t: WorkItem,
  copy: { readonly system: WorkItem["system"]; readonly id: string },
  over: Partial<WorkItem> = {},
): WorkItem {
  const draft = mapping.toTarget(t);
  return {
    ...draft,
    system: copy.system,
    id: copy.id,
    metadata: draft.metadata ?? {},
    comments: [],
    timeEntries: [],
    ...over,
  };
}

/**
 * The marker the job's create of `t` writes: digests of what both sides agreed on, and of what
 * the target holds its own way when `targetHeld` is given.
 */
export function createMarker(
  mapping: CompiledMapping,
  t: WorkItem,
  o: { readonly job?: PlanJob; readonly targetHeld?: Snapshot | undefined } = {},
): Marker {
  return jobMarker({
    job: o.job ?? TEST_JOB,
    mapping,
    kind: t.kind,
    origin: "tinypm",
    originId: t.id,
    tinypmId: t.id,
    agreed: tinypmSnapshot(mapping, t),
    targetHeld: o.targetHeld,
  });
}

/** The link of a tinyPM item and its copy, both bases as the items stand now. */
export function linkOf(
  mapping: CompiledMapping,
  t: WorkItem,
  g: WorkItem,
  over: Partial<LinkView> = {},
): LinkView {
  return {
    kind: t.kind,
    tinypmId: t.id,
    targetId: g.id,
    origin: "tinypm",
    baseTinypm: tinypmSnapshot(mapping, t),
    baseTarget: targetSnapshot(mapping, g),
    syncedAt: SYNCED_AT,
    ...over,
  };
}
