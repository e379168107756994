import { createHmac, randomUUID } from "node:crypto";
import { createWebhookQueue, type DeliveryAttempt } from "../../server-kit/webhook-queue.js";
import type { Account } from "./site.js";
import type { JiraStore } from "./store.js";
import { eventsSince, snapshotStore, type StoreSnapshot } from "./webhook-events.js";

/** Where and how the sandbox delivers webhooks (`sandbox jira --webhook URL`). */
export interface JiraWebhookOptions {
  readonly url: string;
  /** Signs deliveries (`X-Hub-Signature: sha256=…`) when given, as Jira Cloud does. */
  readonly secret?: string | undefined;
  /**
   * Delays before each retry of a delivery answered 408, 409, 425, 429 or 5xx, or not at all.
   * Jira Cloud retries up to five times over up to half an hour; the sandbox compresses that.
   * @default [1000, 2000, 4000, 8000, 16000]
   */
  readonly retryDelaysMs?: readonly number[];
  /**
   * The events the webhook is registered for (`webhookEvent` names, as a Jira admin ticks them:
   * `worklog_created`, `jira:issue_updated`…); the others are not delivered. @default every event
   */
  readonly events?: readonly string[] | undefined;
  /** Told about every attempt (tests, the command's log). */
  readonly onAttempt?: (a: DeliveryAttempt) => void;
}

export interface JiraWebhookSender {
  /** Records the store before a write (call only for writes). */
  beforeWrite(): StoreSnapshot;
  /** Queues the deliveries for what the write changed since `before`. */
  afterWrite(before: StoreSnapshot, origin: string, actor: Account): void;
  /** Resolves once every queued delivery was sent or gave up. */
  drain(): Promise<void>;
  close(): void;
}

/** The statuses after which Jira Cloud tries a delivery again (besides no answer at all). */
const RETRIED = new Set([408, 409, 425, 429]);

/**
 * Sends Jira Cloud–shaped webhooks for every change made through the API, one delivery per
 * event, in order. Headers as Jira sends them: `X-Atlassian-Webhook-Identifier` (kept across
 * retries), `X-Atlassian-Webhook-Flow`, `X-Atlassian-Webhook-Retry` (the retry count, on
 * retries only) and, with a secret, `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`.
 */
export function createJiraWebhookSender(
  store: JiraStore,
  o: JiraWebhookOptions,
  /**
   * Data Center: each payload in DC's shapes (dc-routes.ts `dcWebhookPayload`), sent without
   * Cloud's `X-Atlassian-Webhook-Identifier`/`-Flow`/`-Retry` headers, which Jira 10's
   * `/rest/jira-webhook/1.0` webhooks are not documented to send; a secret still signs.
   */
  dataCenter?: (payload: unknown, origin: string) => unknown,
): JiraWebhookSender {
  let changelogId = 10_000;
  const queue = createWebhookQueue({
    url: o.url,
    retryDelaysMs: o.retryDelaysMs ?? [1000, 2000, 4000, 8000, 16000],
    retryable: (status) => status === "error" || RETRIED.has(status) || status >= 500,
    onAttempt: o.onAttempt,
    headers: (d, attempt) => {
      const headers: Record<string, string> = {
        "content-type": "application/json; charset=UTF-8",
        "user-agent": "Atlassian Webhook HTTP Client",
        ...(dataCenter === undefined && { "x-atlassian-webhook-identifier": d.id }),
      };
      if (attempt > 1 && dataCenter === undefined)
        headers["x-atlassian-webhook-retry"] = String(attempt - 1);
      if (o.secret !== undefined)
        headers["x-hub-signature"] =
          `sha256=${createHmac("sha256", o.secret).update(d.body, "utf8").digest("hex")}`;
      return headers;
    },
  });
  return {
    beforeWrite: () => snapshotStore(store),
    afterWrite(before, origin, actor) {
      for (const e of eventsSince(store, origin, before, actor, () => ++changelogId)) {
        if (o.events !== undefined && !o.events.includes(e.event)) continue;
        queue.push({
          id: randomUUID(),
          event: e.event,
          body: JSON.stringify(
            dataCenter === undefined ? e.payload : dataCenter(e.payload, origin),
          ),
          headers: dataCenter === undefined ? { "x-atlassian-webhook-flow": e.flow } : {},
        });
      }
    },
    drain: () => queue.drain(),
    close: () => {
      queue.close();
    },
  };
}
