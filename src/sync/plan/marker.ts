import { fieldDigests } from "../../core/identity.js";
import type { ItemKind, Marker, SystemName, WorkItemFieldName } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { Snapshot } from "./snapshot.js";
import type { PlanJob } from "./plan-input.js";

/**
 * The version-2 marker the job writes on a target item: which job, which tinyPM (fingerprint),
 * which project, where the item was born, both ids, and the digests of the values both sides
 * held after the write (fields in a parked conflict left out: they are not agreed).
 */
export function jobMarker(o: {
  job: PlanJob;
  mapping: CompiledMapping;
  kind: ItemKind;
  origin: SystemName;
  /** The id on the side the item was born on. */
  originId: string;
  tinypmId: string;
  /** What both sides hold (tinyPM terms) once the write is done. */
  agreed: Snapshot;
  leaveOut?: readonly WorkItemFieldName[] | undefined;
}): Marker {
  const names = o.mapping.fieldNames(o.kind).filter((n) => !(o.leaveOut ?? []).includes(n));
  return {
    job: o.job.name,
    origin: o.origin,
    originKind: o.kind,
    originId: o.originId,
    ...(o.job.instance !== undefined && { instance: o.job.instance }),
    ...(o.job.project !== undefined && { project: o.job.project }),
    tinypmId: o.tinypmId,
    base: fieldDigests(o.agreed.fields, names),
  };
}

/** Whether a target item's marker must be written again: missing, version 1, or stale. */
export function markerStale(current: Marker | undefined, wanted: Marker): boolean {
  if (current === undefined) return true;
  const keys: (keyof Marker)[] = [
    "job",
    "origin",
    "originKind",
    "originId",
    "instance",
    "project",
    "tinypmId",
  ];
  if (keys.some((k) => current[k] !== wanted[k])) return true;
  const a = current.base ?? {};
  const b = wanted.base ?? {};
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].some((n) => a[n] !== b[n]);
}
