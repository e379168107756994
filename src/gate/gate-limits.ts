import { ConfigError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import type { KeyWindow } from "./keyed-windows.js";

/** The limits one token's gate keeps. Absent = no cap. */
export interface GateLimits {
  /** Requests in flight at once (of every kind). @default 4 */
  readonly concurrency?: number | undefined;
  /** Read and search starts in any second. */
  readonly readsPerSecond?: number | undefined;
  /** Write starts in any minute (GitHub: 80 content-creating requests). */
  readonly writesPerMinute?: number | undefined;
  /** Write starts in any hour (GitHub: 500). */
  readonly writesPerHour?: number | undefined;
  /**
   * How the write windows count: from each write's start (`start`, default), or from each
   * write's answer (`completion`: GitHub counts content creation as it receives it, so a write
   * may start only a full window after the write N before it was answered).
   */
  readonly writeWindows?: "start" | "completion" | undefined;
  /** Windows per request key (Jira: writes to one issue, 20 per 2 s and 100 per 30 s). */
  readonly keyWindows?: readonly KeyWindow[] | undefined;
  /** Bound of one request, in real ms: a dead server fails fast. @default 30,000 */
  readonly timeoutMs?: number | undefined;
  /** Testing and benchmark aid: every window is this many times shorter (a scaled sandbox). */
  readonly timeScale?: number | undefined;
}

/** Jira Cloud's per-issue write limits. */
export const JIRA_ISSUE_WRITE_WINDOWS: readonly KeyWindow[] = [
  { max: 20, ms: 2_000 },
  { max: 100, ms: 30_000 },
];

/** The default bound of one request. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * How each service counts, whatever numbers the config sets: GitHub's content-creation windows
 * are completion-anchored; Jira also limits writes per issue.
 */
export function serviceShape(system: SystemName): Partial<GateLimits> {
  if (system === "github") return { writeWindows: "completion" };
  if (system === "jira") return { keyWindows: JIRA_ISSUE_WRITE_WINDOWS };
  return {};
}

const POSITIVE: readonly (keyof GateLimits)[] = [
  "concurrency",
  "readsPerSecond",
  "writesPerMinute",
  "writesPerHour",
  "timeoutMs",
  "timeScale",
];

/** Checks the numbers of `limits` (a typed ConfigError naming the key and the system). */
export function checkGateLimits(system: string, limits: GateLimits): void {
  for (const key of POSITIVE) {
    const value = limits[key];
    if (value === undefined) continue;
    const bad =
      typeof value !== "number" ||
      !(value > 0) ||
      (key === "concurrency" && !Number.isInteger(value));
    if (bad) {
      throw new ConfigError(
        `Request limits of ${system}: ${key} must be a positive number (got ${JSON.stringify(value)}).`,
        {
          hint: `Fix limits.${key} of ${system} in the config.`,
          issues: [{ path: [system, "limits", key], message: "must be a positive number" }],
        },
      );
    }
  }
}
