/** One webhook delivery: its id (unchanged across retries), event name and raw JSON body. */
export interface QueuedDelivery {
  readonly id: string;
  readonly event: string;
  readonly body: string;
  /** Headers of this delivery besides those `headers` gives every attempt. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What one attempt of a delivery came to (the HTTP status, or `error` when nothing answered). */
export interface DeliveryAttempt {
  readonly event: string;
  readonly delivery: string;
  readonly status: number | "error";
  readonly attempt: number;
}

export interface WebhookQueueOptions {
  readonly url: string;
  /** Delays before each retry; their count is the number of retries. */
  readonly retryDelaysMs: readonly number[];
  /** Whether an attempt's outcome is worth another try (when a retry is left). */
  readonly retryable: (status: number | "error") => boolean;
  /** The request headers of attempt `attempt` (1 for the first) of a delivery. */
  readonly headers: (d: QueuedDelivery, attempt: number) => Record<string, string>;
  readonly onAttempt?: ((a: DeliveryAttempt) => void) | undefined;
  /** One attempt's time limit. @default 10000 */
  readonly timeoutMs?: number;
}

export interface WebhookQueue {
  push(d: QueuedDelivery): void;
  /** Resolves once every delivery queued so far was sent or gave up. */
  drain(): Promise<void>;
  /** Drops what waits and stops retrying. */
  close(): void;
}

/**
 * Sends deliveries one at a time, in the order they were queued, to one URL: a delivery whose
 * attempt the policy calls retryable is sent again (same id, headers of the next attempt) after
 * each delay of `retryDelaysMs`, then given up.
 */
export function createWebhookQueue(o: WebhookQueueOptions): WebhookQueue {
  const queue: QueuedDelivery[] = [];
  let sending: Promise<void> | undefined;
  let closed = false;

  const attempt = async (d: QueuedDelivery, n: number): Promise<number | "error"> => {
    try {
      const res = await fetch(o.url, {
        method: "POST",
        headers: { ...o.headers(d, n), ...d.headers },
        body: d.body,
        signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return "error";
    }
  };
  const send = async (d: QueuedDelivery): Promise<void> => {
    for (let i = 0; ; i++) {
      const status = await attempt(d, i + 1);
      o.onAttempt?.({ event: d.event, delivery: d.id, status, attempt: i + 1 });
      const delay = o.retryDelaysMs[i];
      if (!o.retryable(status) || delay === undefined || closed) return;
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
    }
  };
  const pump = async (): Promise<void> => {
    for (let d = queue.shift(); d !== undefined && !closed; d = queue.shift()) await send(d);
    sending = undefined;
  };
  return {
    push(d) {
      if (closed) return;
      queue.push(d);
      sending ??= pump();
    },
    async drain() {
      while (sending !== undefined) await sending;
    },
    close() {
      closed = true;
      queue.length = 0;
    },
  };
}
