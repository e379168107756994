import { readFileSync } from "node:fs";
import type { LoadedConfig, ResolvedJob } from "../config/load.js";
import { digestOf } from "../sync/saved-plan/digest.js";
import type { ConfigDigests } from "../sync/saved-plan/plan-file.js";

/** Settings that change how fast or how a run waits, never what it writes: left out. */
const PACE = ["limits", "timeoutMs", "concurrency"];
/** Resolved secrets: never in a plan, not even as a digest. */
const SECRETS = ["token", "email", "webhookSecret"];

/**
 * The digests of the parts of a job's config a saved plan depends on: tinyPM's and the target's
 * connection, the job's settings, its mapping and user map (their files' contents), the state's
 * location. Secrets, limits and schedules are left out.
 */
export function configDigests(loaded: LoadedConfig, resolved: ResolvedJob): ConfigDigests {
  return {
    tinypm: digestOf(without(resolved.tinypm, [...SECRETS, ...PACE, "fullScanEvery"])),
    target: digestOf(without(resolved.target, [...SECRETS, ...PACE, "webhookSecretEnv"])),
    job: digestOf(without(resolved.job, ["schedule"])),
    mapping: digestOf(readFileSync(resolved.mappingPath, "utf8")),
    users:
      loaded.usersPath === undefined ? "none" : digestOf(readFileSync(loaded.usersPath, "utf8")),
    state: digestOf(loaded.statePath),
  };
}

/** The names of the config parts that differ, in words for a message. */
export function differingParts(
  saved: ConfigDigests,
  now: ConfigDigests,
  resolved: ResolvedJob,
  loaded: LoadedConfig,
): string[] {
  const words: Record<keyof ConfigDigests, string> = {
    tinypm: "the tinyPM connection",
    target: `the target "${resolved.target.name}" (${resolved.target.type})`,
    job: `the job's settings`,
    mapping: `the mapping (${resolved.mappingPath})`,
    users: `the user map (${loaded.usersPath ?? "none"})`,
    state: `the state (${loaded.statePath})`,
  };
  return (Object.keys(words) as (keyof ConfigDigests)[])
    .filter((k) => saved[k] !== now[k])
    .map((k) => words[k]);
}

function without(o: object, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}
