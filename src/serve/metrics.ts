import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { GateEvent } from "../core/request-gate.js";

/** Figures read from the state at scrape time, per job. */
export interface JobFigures {
  readonly job: string;
  readonly items: Readonly<Record<string, number>>;
  readonly conflictsOpen: number;
  readonly failuresParked: number;
}

/** Outcomes of a webhook delivery, as counted. */
export type DeliveryOutcome = "accepted" | "duplicate" | "ignored" | "rejected";

/** The service's Prometheus metrics (names are a contract: docs/serve.md). */
export interface ServeMetrics {
  readonly registry: Registry;
  /** A run ended: its outcome and duration. */
  runFinished(job: string, outcome: string, seconds: number): void;
  /**
   * A listener for the request gate events of one run (or one readiness probe): every request
   * with its HTTP status, and every wait for a rate limit. One per run: its waits are paired
   * per system.
   */
  gateListener(): (event: GateEvent) => void;
  delivery(source: "github" | "jira", outcome: DeliveryOutcome): void;
  /**
   * Run requests: `deferred` — this worker recorded one in the state (another held the job);
   * `coalesced` — a follow-up run of this worker covered `n` requests beyond the first.
   */
  runRequest(job: string, event: "deferred" | "coalesced", n?: number): void;
  /** Text for GET /metrics. */
  render(): Promise<string>;
}

/**
 * Builds the registry. `figures` is read on every scrape (items, open conflicts, parked
 * failures come from the state, not from memory, so they are right after a restart). API
 * requests and rate-limit waits are counted from the request gate's events, as they happen:
 * every request of every adapter passes the gate, so a run's requests show up while it runs.
 */
export function createServeMetrics(opts: {
  figures: () => Promise<readonly JobFigures[]>;
}): ServeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const runs = new Counter({
    name: "tinypm_sync_runs_total",
    help: "Runs of a job by outcome (ok, partial, failed, interrupted).",
    labelNames: ["job", "outcome"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "tinypm_sync_run_duration_seconds",
    help: "Duration of a job's runs.",
    labelNames: ["job"] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: "tinypm_sync_last_success_timestamp_seconds",
    help: "When a job's last successful run ended (Unix time).",
    labelNames: ["job"] as const,
    registers: [registry],
  });
  const items = new Gauge({
    name: "tinypm_sync_items",
    help: "Linked items of a job by kind (story, task).",
    labelNames: ["job", "kind"] as const,
    registers: [registry],
  });
  const conflicts = new Gauge({
    name: "tinypm_sync_conflicts_open",
    help: "Open (unresolved) field conflicts of a job.",
    labelNames: ["job"] as const,
    registers: [registry],
  });
  const failures = new Gauge({
    name: "tinypm_sync_failures_parked",
    help: "Parked failed items of a job (tried again by the next run).",
    labelNames: ["job"] as const,
    registers: [registry],
  });
  const requests = new Counter({
    name: "tinypm_sync_api_requests_total",
    help: "Requests to a remote system by kind (read, write, search) and HTTP status.",
    labelNames: ["system", "kind", "status"] as const,
    registers: [registry],
  });
  const waits = new Counter({
    name: "tinypm_sync_rate_limit_wait_seconds_total",
    help: "Time spent waiting for a system's rate limits.",
    labelNames: ["system"] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: "tinypm_sync_webhook_deliveries_total",
    help: "Webhook deliveries by source and outcome (accepted, duplicate, ignored, rejected).",
    labelNames: ["source", "outcome"] as const,
    registers: [registry],
  });
  const runRequests = new Counter({
    name: "tinypm_sync_run_requests_total",
    help: "Run requests of a job that another worker held: deferred (recorded in the state by this worker) and coalesced (deliveries a follow-up run covered beyond the first).",
    labelNames: ["job", "event"] as const,
    registers: [registry],
  });
  return {
    registry,
    runRequest(job, event, n = 1) {
      runRequests.inc({ job, event }, n);
    },
    runFinished(job, outcome, seconds) {
      runs.inc({ job, outcome });
      duration.observe({ job }, seconds);
      if (outcome === "ok") lastSuccess.set({ job }, Date.now() / 1000);
    },
    gateListener() {
      // The reason of each system's open wait: a retry's backoff is not a rate-limit wait. A
      // run's gate announces one wait at a time per system (however many requests it holds).
      const openWaits = new Map<string, string>();
      return (event) => {
        if (event.type === "request")
          requests.inc({ system: event.system, kind: event.kind, status: String(event.status) });
        else if (event.type === "wait_start") openWaits.set(event.system, event.reason);
        else if (event.type === "wait_end") {
          const reason = openWaits.get(event.system);
          openWaits.delete(event.system);
          if (reason !== "retry") waits.inc({ system: event.system }, event.waitedMs / 1000);
        }
      };
    },
    delivery(source, outcome) {
      deliveries.inc({ source, outcome });
    },
    async render() {
      const figures = await opts.figures();
      items.reset();
      for (const f of figures) {
        for (const [kind, n] of Object.entries(f.items)) items.set({ job: f.job, kind }, n);
        conflicts.set({ job: f.job }, f.conflictsOpen);
        failures.set({ job: f.job }, f.failuresParked);
      }
      return registry.metrics();
    },
  };
}
