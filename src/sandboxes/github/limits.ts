import type { components } from "@octokit/openapi-types";
import type { StatsRecorder } from "../../server-kit/stats.js";
import type { Clock } from "./clock.js";
import { GithubError, RATE_LIMIT_DOCS } from "./errors.js";
import {
  createRateLimiter,
  type PrimaryResource,
  type PrimaryState,
  type RateLimitConfig,
  type RateLimiter,
} from "./rate-limit.js";
import type { UserRecord } from "./store.js";

/** The rate-limit policy wired to the sandbox clock, its headers and its refusals. */
export interface Limits {
  /** Charges one request; throws GitHub's 403/429 when a primary or secondary limit refuses. */
  charge(resource: PrimaryResource | "none", user: UserRecord, creates: boolean): void;
  /** `x-ratelimit-*` headers for the bucket (`none` reports `core`). */
  headers(resource: PrimaryResource | "none", user: UserRecord): Record<string, string>;
  /** The body of `GET /rate_limit`. */
  overview(): components["schemas"]["rate-limit-overview"];
  reset(): void;
}

const SECONDARY_MESSAGE =
  "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.";

export function createLimits(config: RateLimitConfig, clock: Clock, stats: StatsRecorder): Limits {
  const limiter: RateLimiter = createRateLimiter(config);
  const resetSeconds = (s: PrimaryState): number => Math.ceil(clock.realAt(s.reset) / 1000);
  const headersOf = (s: PrimaryState): Record<string, string> => ({
    "x-ratelimit-limit": String(s.limit),
    "x-ratelimit-remaining": String(s.remaining),
    "x-ratelimit-reset": String(resetSeconds(s)),
    "x-ratelimit-used": String(s.used),
    "x-ratelimit-resource": s.resource,
  });
  const rate = (r: PrimaryResource): components["schemas"]["rate-limit"] => {
    const s = limiter.peek(r, clock.now());
    return { limit: s.limit, used: s.used, remaining: s.remaining, reset: resetSeconds(s) };
  };
  return {
    charge(resource, user, creates) {
      const now = clock.now();
      if (resource !== "none") {
        const d = limiter.charge(resource, now);
        if (!d.ok && d.kind === "primary") {
          stats.rateLimited();
          throw new GithubError(
            config.primaryStatus,
            `API rate limit exceeded for user ID ${user.id}.`,
            {
              documentationUrl: `${RATE_LIMIT_DOCS}#about-the-primary-rate-limit`,
              headers: headersOf(d.state),
            },
          );
        }
      }
      if (!creates) return;
      const d = limiter.create(now);
      if (!d.ok && d.kind === "secondary") {
        stats.rateLimited();
        const seconds = Math.max(1, Math.ceil(clock.toReal(d.retryAfterMs) / 1000));
        throw new GithubError(config.secondaryStatus, SECONDARY_MESSAGE, {
          documentationUrl: `${RATE_LIMIT_DOCS}#about-secondary-rate-limits`,
          headers: {
            ...headersOf(limiter.peek("core", now)),
            ...(config.retryAfter ? { "retry-after": String(seconds) } : {}),
          },
        });
      }
    },
    headers: (resource) =>
      headersOf(limiter.peek(resource === "none" ? "core" : resource, clock.now())),
    overview() {
      const core = rate("core");
      return { resources: { core, search: rate("search") }, rate: core };
    },
    reset: () => {
      limiter.reset();
    },
  };
}
