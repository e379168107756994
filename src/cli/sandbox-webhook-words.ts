import type { DeliveryAttempt } from "../server-kit/webhook-queue.js";
import { formatDuration } from "../core/duration.js";

/** `webhook: delivering every change to URL (signed with …)`: printed when a sandbox starts. */
export function webhookStartLine(url: string, signed: boolean): string {
  return `webhook: delivering every change to ${url} (${signed ? "signed with the secret of --webhook-secret-env" : "unsigned: serve refuses unsigned deliveries; add --webhook-secret-env"})`;
}

/**
 * A failed delivery attempt in words, or undefined for one that was answered 2xx; `retries` are
 * the queue's delays before each retry (the attempt after the last is given up).
 */
export function webhookFailureLine(
  a: DeliveryAttempt,
  url: string,
  retries: readonly number[],
  /** Whether the queue retries this outcome (it gives up at once when not). */
  retryable: boolean,
): string | undefined {
  if (a.status !== "error" && a.status < 300) return undefined;
  const why =
    a.status === "error"
      ? "no answer (is serve running on that address?)"
      : `answered ${a.status}${a.status === 401 ? " (does serve's webhookSecretEnv hold the same secret as --webhook-secret-env?)" : ""}`;
  const delay = retryable ? retries[a.attempt - 1] : undefined;
  const next =
    delay === undefined
      ? `given up after ${a.attempt} ${a.attempt === 1 ? "attempt" : "attempts"}`
      : `trying again in ${formatDuration(delay)}`;
  return `webhook: ${a.event} delivery ${a.delivery} to ${url} failed: ${why}; ${next}`;
}
