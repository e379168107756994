/**
 * GitHub's rate limits as a pure policy over sandbox time (see clock.ts).
 *
 * - Primary buckets (`core`, `search`): fixed windows that start with the first request; every
 *   request except 304s and `GET /rate_limit` costs one; when exhausted: "API rate limit
 *   exceeded for user ID N." with `x-ratelimit-remaining: 0` until `x-ratelimit-reset`.
 * - Secondary content-creation limit (`creates`): sliding windows (80 per minute and 500 per
 *   hour on github.com) over content-creating writes; when full: "You have exceeded a secondary
 *   rate limit…" with `retry-after`.
 *
 * Spec grammar (`--rate-limits`): `off`, `real`, or a comma list of `bucket=N/unit` (unit `s`,
 * `min`, `h`; buckets `core`, `search`, `creates`, the last may repeat) and the switches
 * `primary-status=403|429`, `secondary-status=403|429`, `retry-after=on|off`.
 * Buckets a spec does not name keep GitHub's real values.
 */

export type Bucket = "core" | "search" | "creates";
export type PrimaryResource = "core" | "search";

interface LimitRule {
  readonly bucket: Bucket;
  readonly limit: number;
  readonly windowMs: number;
}

export interface RateLimitConfig {
  /** False for `off`: counters still move (headers stay truthful) but nothing is refused. */
  readonly enforce: boolean;
  readonly rules: readonly LimitRule[];
  readonly primaryStatus: 403 | 429;
  readonly secondaryStatus: 403 | 429;
  /** Whether secondary-limit answers carry `retry-after`. */
  readonly retryAfter: boolean;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const UNITS: Readonly<Record<string, number>> = {
  s: 1000,
  sec: 1000,
  m: MINUTE,
  min: MINUTE,
  h: HOUR,
  hour: HOUR,
};

export const REAL_RULES: readonly LimitRule[] = [
  { bucket: "core", limit: 5000, windowMs: HOUR },
  { bucket: "search", limit: 30, windowMs: MINUTE },
  { bucket: "creates", limit: 80, windowMs: MINUTE },
  { bucket: "creates", limit: 500, windowMs: HOUR },
];

const OFF_RULES: readonly LimitRule[] = [
  { bucket: "core", limit: 1_000_000_000, windowMs: HOUR },
  { bucket: "search", limit: 1_000_000_000, windowMs: MINUTE },
];

/** Parses `off` | `real` | SPEC; throws an Error quoting the bad part. */
export function parseRateLimitSpec(spec: string): RateLimitConfig {
  const base = { primaryStatus: 403, secondaryStatus: 403, retryAfter: true } as const;
  const text = spec.trim();
  // Off: nothing is refused, and the reported quota is so large that no client ever sees it
  // run low and starts waiting (usage is still counted and reported).
  if (text === "off") return { ...base, enforce: false, rules: OFF_RULES };
  if (text === "real" || text === "") return { ...base, enforce: true, rules: REAL_RULES };
  const rules: LimitRule[] = [];
  let config: RateLimitConfig = { ...base, enforce: true, rules };
  for (const part of text.split(",").map((p) => p.trim())) {
    const [key = "", value = ""] = part.split("=", 2).map((s) => s.trim());
    if (key === "primary-status" || key === "secondary-status") {
      if (value !== "403" && value !== "429") throw badPart(part, "status must be 403 or 429");
      const status = value === "403" ? 403 : 429;
      config =
        key === "primary-status"
          ? { ...config, primaryStatus: status }
          : { ...config, secondaryStatus: status };
    } else if (key === "retry-after") {
      if (value !== "on" && value !== "off") throw badPart(part, "retry-after must be on or off");
      config = { ...config, retryAfter: value === "on" };
    } else {
      rules.push(parseRule(part, key, value));
    }
  }
  const named = new Set(rules.map((r) => r.bucket));
  return { ...config, rules: [...rules, ...REAL_RULES.filter((r) => !named.has(r.bucket))] };
}

function parseRule(part: string, key: string, value: string): LimitRule {
  if (key !== "core" && key !== "search" && key !== "creates") {
    throw badPart(part, "bucket must be core, search or creates");
  }
  const match = /^(\d+)\/(\w+)$/.exec(value);
  const unit = match ? UNITS[match[2] ?? ""] : undefined;
  if (!match || unit === undefined || Number(match[1]) <= 0) {
    throw badPart(part, "expected N/s, N/min or N/h with N > 0");
  }
  return { bucket: key, limit: Number(match[1]), windowMs: unit };
}

function badPart(part: string, why: string): Error {
  return new Error(
    `rate-limit spec part "${part}": ${why} (example: core=5000/h,creates=80/min,creates=500/h,search=30/min)`,
  );
}

/** What `x-ratelimit-*` headers report for a primary bucket; `reset` is sandbox epoch ms. */
export interface PrimaryState {
  readonly resource: PrimaryResource;
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  readonly reset: number;
}

type Decision =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: "primary"; readonly state: PrimaryState }
  | { readonly ok: false; readonly kind: "secondary"; readonly retryAfterMs: number };

export interface RateLimiter {
  readonly config: RateLimitConfig;
  /** Current state of a primary bucket, without charging. */
  peek(resource: PrimaryResource, now: number): PrimaryState;
  /** Charges one request to a primary bucket; refuses when it is exhausted. */
  charge(resource: PrimaryResource, now: number): Decision;
  /** Records one content creation; refuses when any creation window is full. */
  create(now: number): Decision;
  reset(): void;
}

interface Window {
  start: number;
  used: number;
}

export function createRateLimiter(config: RateLimitConfig): RateLimiter {
  let windows = new Map<PrimaryResource, Window>();
  let creations: number[] = [];
  const fallback: Readonly<Record<PrimaryResource, LimitRule>> = {
    core: { bucket: "core", limit: 5000, windowMs: HOUR },
    search: { bucket: "search", limit: 30, windowMs: MINUTE },
  };
  const primaryRule = (r: PrimaryResource): LimitRule =>
    config.rules.find((x) => x.bucket === r) ?? fallback[r];
  const createRules = config.rules.filter((r) => r.bucket === "creates");
  const longest = Math.max(0, ...createRules.map((r) => r.windowMs));

  const current = (resource: PrimaryResource, now: number): Window => {
    const rule = primaryRule(resource);
    let w = windows.get(resource);
    if (w === undefined || now >= w.start + rule.windowMs) {
      w = { start: now, used: 0 };
      windows.set(resource, w);
    }
    return w;
  };
  const state = (resource: PrimaryResource, w: Window): PrimaryState => {
    const rule = primaryRule(resource);
    return {
      resource,
      limit: rule.limit,
      used: w.used,
      remaining: Math.max(0, rule.limit - w.used),
      reset: w.start + rule.windowMs,
    };
  };

  return {
    config,
    peek: (resource, now) => state(resource, current(resource, now)),
    charge(resource, now) {
      const w = current(resource, now);
      if (config.enforce && w.used >= primaryRule(resource).limit) {
        return { ok: false, kind: "primary", state: state(resource, w) };
      }
      w.used++;
      return { ok: true };
    },
    create(now) {
      creations = creations.filter((t) => t > now - longest);
      if (config.enforce) {
        let waitMs = 0;
        for (const rule of createRules) {
          const inWindow = creations.filter((t) => t > now - rule.windowMs);
          if (inWindow.length < rule.limit) continue;
          // The window frees a slot when its oldest counted creation leaves it.
          const oldest = inWindow[inWindow.length - rule.limit] ?? now;
          waitMs = Math.max(waitMs, oldest + rule.windowMs - now);
        }
        if (waitMs > 0) return { ok: false, kind: "secondary", retryAfterMs: waitMs };
      }
      creations.push(now);
      return { ok: true };
    },
    reset() {
      windows = new Map();
      creations = [];
    },
  };
}
