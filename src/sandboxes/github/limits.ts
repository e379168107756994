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
  /** `GET /rate_limit`; `withRate` false leaves out the deprecated top-level `rate`. */
  overview(withRate?: boolean): RateLimitOverview;
  reset(): void;
}

/** `/rate_limit`'s body; `rate` is absent in API version 2026-03-10. */
export type RateLimitOverview = Omit<components["schemas"]["rate-limit-overview"], "rate"> & {
  rate?: components["schemas"]["rate-limit"];
};

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
    overview(withRate = true) {
      const core = rate("core");
      // Buckets the sandbox does not meter are reported full, with GitHub's limits.
      const fresh = (limit: number, windowMs: number): components["schemas"]["rate-limit"] => ({
        limit,
        used: 0,
        remaining: limit,
        reset: Math.ceil((Date.now() + windowMs) / 1000),
      });
      const hour = 3_600_000;
      const resources = {
        core,
        search: rate("search"),
        graphql: fresh(5000, hour),
        integration_manifest: fresh(5000, hour),
        source_import: fresh(100, 60_000),
        code_scanning_autofix: fresh(10, 60_000),
        actions_runner_registration: fresh(10_000, hour),
        scim: fresh(15_000, hour),
        dependency_snapshots: fresh(100, 60_000),
        dependency_sbom: fresh(100, 60_000),
        code_search: fresh(10, 60_000),
      };
      // API version 2026-03-10 removed the deprecated top-level `rate`.
      return withRate ? { resources, rate: core } : { resources };
    },
    reset: () => {
      limiter.reset();
    },
  };
}
