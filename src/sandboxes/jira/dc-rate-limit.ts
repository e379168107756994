/**
 * Jira Data Center's rate limiting (off unless an admin turns it on, 8.6+): one token bucket per
 * user for REST calls, `max` tokens, refilled by `fill` tokens every interval. Every limited
 * answer carries `X-RateLimit-Limit`, `-Remaining`, `-Interval-Seconds`, `-FillRate` and
 * `Retry-After` (0 while tokens remain); an empty bucket answers 429 with the seconds to wait.
 * https://confluence.atlassian.com/adminjiraserver/adjusting-your-code-for-rate-limiting-987143384.html
 *
 * Spec grammar: `off`, `real` (= `max=100,fill=10/1s`) or `max=N,fill=N/Ns`.
 */
import type { RateLimiter } from "./rate-limit.js";

export interface DcRateLimitConfig {
  /** Bucket size ("Max requests"). */
  readonly max: number;
  /** Tokens added per interval ("Requests allowed"). */
  readonly fill: number;
  readonly intervalSeconds: number;
}

export const REAL_DC_RATE_LIMITS = "max=100,fill=10/1s";

/** Parses a DC spec; undefined means off. Throws an Error naming the bad part. */
export function parseDcRateLimitSpec(spec: string): DcRateLimitConfig | undefined {
  const text = spec.trim() === "real" ? REAL_DC_RATE_LIMITS : spec.trim();
  if (text === "off" || text === "") return undefined;
  const match = /^max=(\d+),fill=(\d+)\/(\d*)s$/.exec(text.replace(/\s+/g, ""));
  if (match === null)
    throw new Error(
      `Data Center rate limit "${spec}": expected off, real, or max=N,fill=N/Ns (e.g. ${REAL_DC_RATE_LIMITS})`,
    );
  const config = {
    max: Number(match[1]),
    fill: Number(match[2]),
    intervalSeconds: Number(match[3] === "" ? "1" : match[3]),
  };
  if (config.max <= 0 || config.fill <= 0 || config.intervalSeconds <= 0)
    throw new Error(`Data Center rate limit "${spec}": every number must be positive`);
  return config;
}

/** The per-user bucket (the sandbox has one API user, so one bucket). */
export function createDcRateLimiter(config: DcRateLimitConfig | undefined): RateLimiter {
  let bucket: { tokens: number; at: number } | undefined;
  return {
    check(_request, now) {
      if (config === undefined) return { allowed: true, headers: {} };
      const intervalMs = config.intervalSeconds * 1000;
      const b = bucket ?? { tokens: config.max, at: now };
      b.tokens = Math.min(config.max, b.tokens + ((now - b.at) * config.fill) / intervalMs);
      b.at = now;
      bucket = b;
      const base = {
        "x-ratelimit-limit": String(config.max),
        "x-ratelimit-interval-seconds": String(config.intervalSeconds),
        "x-ratelimit-fillrate": String(config.fill),
      };
      if (b.tokens < 1) {
        const retryAfterMs = ((1 - b.tokens) * intervalMs) / config.fill;
        return {
          allowed: false,
          reason: "jira-dc-token-bucket",
          retryAfterMs,
          limit: config.max,
          headers: { ...base, "x-ratelimit-remaining": "0" },
        };
      }
      b.tokens -= 1;
      return {
        allowed: true,
        headers: {
          ...base,
          "x-ratelimit-remaining": String(Math.floor(b.tokens)),
          "retry-after": "0",
        },
      };
    },
    reset() {
      bucket = undefined;
    },
  };
}
