import type { ItemSelection } from "./types.js";

/** Delivery ids remembered for redelivery checks (the oldest are forgotten past this). */
const DELIVERIES_KEPT = 10_000;

export interface WebhookIntakeOptions {
  /** Called once per job when its debounce window closes, with the union of the named items. */
  readonly fire: (job: string, items: ItemSelection) => void;
  /** Quiet time after the last delivery before the run is asked for. @default 1000 */
  readonly debounceMs?: number;
  /** A steady stream of deliveries still runs at least this often. @default 5 × debounceMs */
  readonly maxWaitMs?: number;
}

/** What became of a verified delivery. */
export type IntakeResult = "accepted" | "duplicate";

/**
 * Turns verified webhook deliveries into targeted runs: the same delivery id twice (a
 * redelivery) counts once; deliveries for a job within the debounce window coalesce into one
 * request naming every item they named (a delivery naming no item asks for the whole job).
 */
export interface WebhookIntake {
  accept(
    source: string,
    deliveryId: string,
    jobs: readonly string[],
    items: ItemSelection,
  ): IntakeResult;
  /** Deliveries waiting in a debounce window. */
  waiting(): number;
  /** Forgets what waits (the service is stopping). */
  close(): void;
}

interface Window {
  items: Set<string> | undefined;
  timer: NodeJS.Timeout;
  firstAt: number;
}

export function createWebhookIntake(opts: WebhookIntakeOptions): WebhookIntake {
  const debounceMs = opts.debounceMs ?? 1000;
  const maxWaitMs = opts.maxWaitMs ?? debounceMs * 5;
  const seen = new Set<string>();
  const windows = new Map<string, Window>();
  const flush = (job: string): void => {
    const w = windows.get(job);
    if (w === undefined) return;
    windows.delete(job);
    clearTimeout(w.timer);
    opts.fire(job, w.items);
  };
  const arm = (job: string, firstAt: number): NodeJS.Timeout => {
    const delay = Math.max(0, Math.min(debounceMs, firstAt + maxWaitMs - Date.now()));
    const timer = setTimeout(() => {
      flush(job);
    }, delay);
    timer.unref();
    return timer;
  };
  return {
    accept(source, deliveryId, jobs, items) {
      const key = `${source}:${deliveryId}`;
      if (seen.has(key)) return "duplicate";
      seen.add(key);
      if (seen.size > DELIVERIES_KEPT) {
        const oldest = seen.values().next().value;
        if (oldest !== undefined) seen.delete(oldest);
      }
      for (const job of jobs) {
        const w = windows.get(job);
        if (w === undefined) {
          const firstAt = Date.now();
          windows.set(job, {
            items: items === undefined ? undefined : new Set(items),
            timer: arm(job, firstAt),
            firstAt,
          });
          continue;
        }
        clearTimeout(w.timer);
        if (items === undefined) w.items = undefined;
        else if (w.items !== undefined) for (const id of items) w.items.add(id);
        w.timer = arm(job, w.firstAt);
      }
      return "accepted";
    },
    waiting: () => windows.size,
    close() {
      for (const w of windows.values()) clearTimeout(w.timer);
      windows.clear();
    },
  };
}
