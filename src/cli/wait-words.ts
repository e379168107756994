import type { WaitReason } from "../core/request-gate.js";
import { formatDuration as duration } from "../core/duration.js";
import { systemLabel } from "../core/system-label.js";

/** A wait the request gate announced (`wait_start`) and has not ended yet. */
export interface OpenWait {
  readonly system: string;
  readonly reason: WaitReason;
  /** Epoch ms when requests resume. */
  readonly until: number;
  /** The request that met the wait. */
  readonly operation?: string | undefined;
}

/** `GitHub`, `tinyPM`, `Jira` (any other name as it is). */
export function systemName(system: string): string {
  return systemLabel(system);
}

/** What the run waits for, in words: `GitHub's hourly limit`, `a retry of a Jira request`… */
export function waitCause(system: string, reason: WaitReason): string {
  const name = systemName(system);
  switch (reason) {
    case "hour":
      return `${name}'s hourly limit`;
    case "minute":
      return `${name}'s per-minute limit`;
    case "second":
      return `${name}'s per-second limit`;
    case "key":
      return `${name}'s limit on writes to one item`;
    case "service":
      return `${name}'s own rate limit (the service asked to wait)`;
    case "retry":
      return `the next try of a failed ${name} request`;
  }
}

/** `14:05` for a wait of minutes or more, `14:05:30` for a shorter one (local time). */
export function clockTime(at: number, now: number): string {
  const d = new Date(at);
  const pad = (n: number): string => String(n).padStart(2, "0");
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return at - now < 120_000 ? `${hm}:${pad(d.getSeconds())}` : hm;
}

/** `waiting for GitHub's hourly limit · resumes 14:05 (in 50 min)`. */
export function waitLine(wait: OpenWait, now: number): string {
  const left = Math.max(0, wait.until - now);
  return `waiting for ${waitCause(wait.system, wait.reason)} · resumes ${clockTime(wait.until, now)} (in ${duration(left)})`;
}

/** `GitHub: waited 50 min for its hourly limit; resuming`. */
export function waitEndLine(
  system: string,
  reason: WaitReason | undefined,
  waitedMs: number,
): string {
  const cause = reason === undefined ? "" : ` for ${waitCause(system, reason)}`;
  return `${systemName(system)}: waited ${duration(waitedMs)}${cause}; resuming`;
}

/** Of several open waits, the one that ends last (it bounds when work goes on). */
export function longestWait(waits: Iterable<OpenWait>): OpenWait | undefined {
  let longest: OpenWait | undefined;
  for (const w of waits) if (longest === undefined || w.until > longest.until) longest = w;
  return longest;
}
