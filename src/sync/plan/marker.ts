import { fieldDigests, valueDigest } from "../../core/identity.js";
import type { ItemKind, Marker, SystemName, WorkItemFieldName } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { Snapshot } from "./snapshot.js";
import type { PlanJob } from "./plan-input.js";

/**
 * The digest a marker gives a field in a parked conflict (no value is agreed): not a digest of
 * any value (those are hex), so a lost state's rebuilt link finds the conflict again instead of
 * taking the side written last. Older releases read it as a digest no side matches.
 */
export const PARKED_DIGEST = "parked";

/**
 * The version-2 marker the job writes on a target item: which job, which tinyPM (fingerprint),
 * which project, where the item was born, both ids, and the digests of the values both sides
 * held after the write (fields in a parked conflict marked `PARKED_DIGEST`; fields in
 * `leaveOut` left out: they are not agreed). With
 * `targetHeld` (what the target holds after the write, tinyPM terms), the fields where the target
 * holds another value than tinyPM's (a default it chose, a normalisation) get a target digest too.
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
  /** Fields in a parked conflict (both sides edited, neither written). */
  parked?: readonly WorkItemFieldName[] | undefined;
  targetHeld?: Snapshot | undefined;
}): Marker {
  const all = o.mapping.fieldNames(o.kind).filter((n) => !(o.leaveOut ?? []).includes(n));
  const parked = all.filter((n) => (o.parked ?? []).includes(n));
  const names = all.filter((n) => !parked.includes(n));
  const base = fieldDigests(o.agreed.fields, names);
  for (const n of parked) base[n] = PARKED_DIGEST;
  const marker: Marker = {
    job: o.job.name,
    origin: o.origin,
    originKind: o.kind,
    originId: o.originId,
    ...(o.job.instance !== undefined && { instance: o.job.instance }),
    ...(o.job.project !== undefined && { project: o.job.project }),
    tinypmId: o.tinypmId,
    base,
  };
  return o.targetHeld === undefined ? marker : withTargetDigests(marker, o.targetHeld);
}

/**
 * The marker with the target digests `held` (what the target holds, tinyPM terms) calls for:
 * one for each field of `base` whose value on the target has another digest; none when the
 * target holds tinyPM's values (the marker stays as small as before).
 */
export function withTargetDigests(marker: Marker, held: Snapshot): Marker {
  const digests: Record<string, string> = {};
  for (const name of Object.keys(marker.base ?? {})) digests[name] = valueDigest(held.fields[name]);
  return withHeldDigests(marker, digests);
}

/**
 * The same from digests: `held` gives, per field of `base`, the digest of what the target holds;
 * a field it leaves out is taken to hold `base`'s value.
 */
export function withHeldDigests(marker: Marker, held: Readonly<Record<string, string>>): Marker {
  const target: Record<string, string> = {};
  for (const [name, digest] of Object.entries(marker.base ?? {})) {
    if (digest === PARKED_DIGEST) continue;
    const h = held[name];
    if (h !== undefined && h !== digest) target[name] = h;
  }
  const { target: _old, ...rest } = marker;
  return Object.keys(target).length === 0 ? rest : { ...rest, target };
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
  return differ(current.base, wanted.base) || differ(current.target, wanted.target);
}

function differ(
  a: Readonly<Record<string, string>> = {},
  b: Readonly<Record<string, string>> = {},
): boolean {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].some((n) => a[n] !== b[n]);
}
