/**
 * Jira Cloud's burst and per-issue write limits, as a pure policy over an injected clock.
 * https://developer.atlassian.com/cloud/jira/platform/rate-limiting/
 *
 * - burst: a token bucket per endpoint × HTTP method (capacity = limit, refilled over the window);
 * - per-issue writes: sliding windows on any single issue (20 per 2 s and 100 per 30 s);
 * - optional hourly points quotas (`global-quota`, `tenant-quota`): 1 point per request, reset
 *   at the top of each hour.
 *
 * Spec grammar: `off`, `real`, or a comma list of `name=N/window` with name in get, post, put,
 * delete, issue-writes, global-quota, tenant-quota and window like `s`, `2s`, `500ms`, `m`, `h`.
 */

type RateLimitReason =
  | "jira-dc-token-bucket"
  | "jira-burst-based"
  | "jira-per-issue-on-write"
  | "jira-quota-global-based"
  | "jira-quota-tenant-based";

interface RateLimitRule {
  readonly limit: number;
  readonly windowMs: number;
}

export interface RateLimitConfig {
  readonly burst: Readonly<Partial<Record<"GET" | "POST" | "PUT" | "DELETE", RateLimitRule>>>;
  readonly issueWrites: readonly RateLimitRule[];
  readonly globalQuota?: RateLimitRule | undefined;
  readonly tenantQuota?: RateLimitRule | undefined;
}

export const REAL_RATE_LIMITS =
  "get=100/s,post=100/s,put=50/s,delete=50/s,issue-writes=20/2s,issue-writes=100/30s";

const NAMES = ["get", "post", "put", "delete", "issue-writes", "global-quota", "tenant-quota"];

/** Parses `off`, `real` or a spec; throws an Error naming the bad part and the valid names. */
export function parseRateLimitSpec(spec: string): RateLimitConfig {
  const text = spec.trim() === "real" ? REAL_RATE_LIMITS : spec.trim();
  const config: {
    burst: Partial<Record<"GET" | "POST" | "PUT" | "DELETE", RateLimitRule>>;
    issueWrites: RateLimitRule[];
    globalQuota?: RateLimitRule;
    tenantQuota?: RateLimitRule;
  } = { burst: {}, issueWrites: [] };
  if (text === "off" || text === "") return config;
  for (const part of text.split(",").map((s) => s.trim())) {
    const match = /^([a-z-]+)=(\d+)\/(\d*)(ms|s|m|h)$/.exec(part);
    const name = match?.[1] ?? "";
    if (match === null || !NAMES.includes(name)) {
      throw new Error(
        `rate limit "${part}": expected name=N/window with name one of ${NAMES.join(", ")} and a window like s, 2s, 500ms, m, h`,
      );
    }
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[4] as "ms" | "s" | "m" | "h"];
    const rule = {
      limit: Number(match[2]),
      windowMs: Number(match[3] === "" ? "1" : match[3]) * unit,
    };
    if (rule.limit <= 0 || rule.windowMs <= 0) {
      throw new Error(`rate limit "${part}": the limit and the window must be positive`);
    }
    if (name === "issue-writes") config.issueWrites.push(rule);
    else if (name === "global-quota") config.globalQuota = rule;
    else if (name === "tenant-quota") config.tenantQuota = rule;
    else config.burst[name.toUpperCase() as "GET"] = rule;
  }
  return config;
}

interface RateLimitRequest {
  readonly method: string;
  /** The endpoint (route pattern): each endpoint × method has its own bucket. */
  readonly endpoint: string;
  /** The issue a write targets, when it targets one. */
  readonly issueId?: string | undefined;
  readonly write: boolean;
}

type RateLimitDecision =
  | { readonly allowed: true; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly allowed: false;
      readonly reason: RateLimitReason;
      /** Milliseconds of (simulated) time until the request would be allowed. */
      readonly retryAfterMs: number;
      readonly limit: number;
      /** Headers of the 429 in place of Cloud's (Data Center's own set); `retry-after` is added. */
      readonly headers?: Readonly<Record<string, string>>;
    };

export interface RateLimiter {
  check(request: RateLimitRequest, now: number): RateLimitDecision;
  reset(): void;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Creates the limiter; `now` passed to `check` may run faster than real time (time scale). */
export function createRateLimiter(config: RateLimitConfig): RateLimiter {
  let buckets = new Map<string, Bucket>();
  let writes = new Map<string, number[]>();
  let quotas = new Map<RateLimitReason, Quota>();
  return {
    check(request, now) {
      const denied =
        checkQuota(config, quotas, now) ??
        checkIssue(config, writes, request, now) ??
        checkBurst(config, buckets, request, now);
      if (denied !== undefined) return denied;
      for (const quota of quotas.values()) quota.used++;
      if (request.write && request.issueId !== undefined) {
        const log = writes.get(request.issueId) ?? [];
        log.push(now);
        writes.set(request.issueId, log);
      }
      return { allowed: true, headers: burstHeaders(config, buckets, request) };
    },
    reset() {
      buckets = new Map();
      writes = new Map();
      quotas = new Map();
    },
  };
}

/** Points spent in the current quota window (1 point per request). */
interface Quota {
  window: number;
  used: number;
}

function checkQuota(
  config: RateLimitConfig,
  quotas: Map<RateLimitReason, Quota>,
  now: number,
): RateLimitDecision | undefined {
  const rules: [RateLimitReason, RateLimitRule | undefined][] = [
    ["jira-quota-global-based", config.globalQuota],
    ["jira-quota-tenant-based", config.tenantQuota],
  ];
  for (const [reason, rule] of rules) {
    if (rule === undefined) continue;
    const window = Math.floor(now / rule.windowMs);
    const quota = quotas.get(reason) ?? { window, used: 0 };
    if (quota.window !== window) Object.assign(quota, { window, used: 0 });
    quotas.set(reason, quota);
    if (quota.used >= rule.limit) {
      return {
        allowed: false,
        reason,
        retryAfterMs: (window + 1) * rule.windowMs - now,
        limit: rule.limit,
      };
    }
  }
  return undefined;
}

function checkIssue(
  config: RateLimitConfig,
  writes: Map<string, number[]>,
  request: RateLimitRequest,
  now: number,
): RateLimitDecision | undefined {
  if (!request.write || request.issueId === undefined || config.issueWrites.length === 0) {
    return undefined;
  }
  const longest = Math.max(...config.issueWrites.map((r) => r.windowMs));
  const log = (writes.get(request.issueId) ?? []).filter((t) => t > now - longest);
  writes.set(request.issueId, log);
  for (const rule of config.issueWrites) {
    const inWindow = log.filter((t) => t > now - rule.windowMs);
    if (inWindow.length >= rule.limit) {
      const oldest = inWindow[inWindow.length - rule.limit] ?? now;
      return {
        allowed: false,
        reason: "jira-per-issue-on-write",
        retryAfterMs: oldest + rule.windowMs - now,
        limit: rule.limit,
      };
    }
  }
  return undefined;
}

function checkBurst(
  config: RateLimitConfig,
  buckets: Map<string, Bucket>,
  request: RateLimitRequest,
  now: number,
): RateLimitDecision | undefined {
  const rule = config.burst[request.method.toUpperCase() as "GET"];
  if (rule === undefined) return undefined;
  const key = `${request.method} ${request.endpoint}`;
  const bucket = buckets.get(key) ?? { tokens: rule.limit, at: now };
  const refill = ((now - bucket.at) * rule.limit) / rule.windowMs;
  bucket.tokens = Math.min(rule.limit, bucket.tokens + refill);
  bucket.at = now;
  buckets.set(key, bucket);
  if (bucket.tokens < 1) {
    const retryAfterMs = ((1 - bucket.tokens) * rule.windowMs) / rule.limit;
    return { allowed: false, reason: "jira-burst-based", retryAfterMs, limit: rule.limit };
  }
  bucket.tokens -= 1;
  return undefined;
}

function burstHeaders(
  config: RateLimitConfig,
  buckets: Map<string, Bucket>,
  request: RateLimitRequest,
): Record<string, string> {
  const rule = config.burst[request.method.toUpperCase() as "GET"];
  const bucket = buckets.get(`${request.method} ${request.endpoint}`);
  if (rule === undefined || bucket === undefined) return {};
  const remaining = Math.floor(bucket.tokens);
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(rule.limit),
    "x-ratelimit-remaining": String(remaining),
    "beta-ratelimit-policy": `"jira-burst-based";q=${rule.limit};w=${Math.max(1, Math.round(rule.windowMs / 1000))}`,
  };
  if (remaining < rule.limit * 0.2) headers["x-ratelimit-nearlimit"] = "true";
  return headers;
}
