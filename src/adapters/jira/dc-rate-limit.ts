/**
 * Jira Data Center's rate limiting, read from an answer (pure). When an admin turns it on, every
 * REST answer carries the user's token bucket: `X-RateLimit-Remaining` tokens left,
 * `X-RateLimit-FillRate` tokens added every `X-RateLimit-Interval-Seconds`, and `Retry-After`
 * (seconds until new tokens; 0 while tokens remain). The next request with an empty bucket would
 * be a 429, so the request gate holds every request until one token is back. Without the headers
 * (limiting off, the default) nothing is held.
 * https://confluence.atlassian.com/adminjiraserver/adjusting-your-code-for-rate-limiting-987143384.html
 */

type Headers = Readonly<Record<string, unknown>>;

function numberOf(headers: Headers, name: string): number | undefined {
  const raw = headers[name];
  const text: unknown = Array.isArray(raw) ? (raw[0] as unknown) : raw;
  if (typeof text !== "string" && typeof text !== "number") return undefined;
  const n = Number(text);
  return String(text).trim() !== "" && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * How long (ms) the requests after this answer should wait: `Retry-After` when it asks for a
 * wait, else — once the bucket is empty — the time one token takes to come back
 * (interval ÷ fill rate, 1 s when the answer names neither); 0 while tokens remain; undefined
 * when the answer carries no bucket.
 */
export function dcRateLimitHoldMs(headers: Headers): number | undefined {
  const remaining = numberOf(headers, "x-ratelimit-remaining");
  if (remaining === undefined) return undefined;
  const retryAfter = numberOf(headers, "retry-after") ?? 0;
  if (retryAfter > 0) return retryAfter * 1000;
  if (remaining >= 1) return 0;
  const fill = numberOf(headers, "x-ratelimit-fillrate");
  const interval = numberOf(headers, "x-ratelimit-interval-seconds");
  if (fill === undefined || fill === 0 || interval === undefined) return 1000;
  return Math.ceil((interval * 1000) / fill);
}
