import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { GateEvent } from "../core/request-gate.js";
import type { RunReport } from "../sync/engine.js";
import type { SyncEvent } from "../sync/events.js";

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
  /** A run ended: outcome, duration, the per-system API use of its report. */
  runFinished(job: string, outcome: string, seconds: number, run: RunReport | undefined): void;
  /** A run's event (rate-limit waits, until the request gate reports them itself). */
  runEvent(event: SyncEvent): void;
  /** A request gate event: every request and every wait. */
  gateEvent(event: GateEvent): void;
  delivery(source: "github" | "jira", outcome: DeliveryOutcome): void;
  /** Text for GET /metrics. */
  render(): Promise<string>;
}

/**
 * Builds the registry. `figures` is read on every scrape (items, open conflicts, parked
 * failures come from the state, not from memory, so they are right after a restart). API
 * requests are counted from the gate's events when it reports them (`gateEvents: true`), else
 * from each run's report.
 */
export function createServeMetrics(opts: {
  figures: () => readonly JobFigures[];
  gateEvents?: boolean;
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
  const fromGate = opts.gateEvents === true;
  // Runs report the gate's waits as wait_start/wait_end; older lanes as rate_limited. Once a run
  // reported a wait_start, rate_limited events are not counted again (they describe the same wait).
  let waitEvents = false;
  const openWaits = new Map<string, string>();
  return {
    registry,
    runFinished(job, outcome, seconds, run) {
      runs.inc({ job, outcome });
      duration.observe({ job }, seconds);
      if (outcome === "ok") lastSuccess.set({ job }, Date.now() / 1000);
      if (fromGate || run === undefined) return;
      for (const [system, use] of Object.entries(run.apiCalls)) {
        const fresh = Math.max(0, use.reads - use.notModified);
        if (fresh > 0) requests.inc({ system, kind: "read", status: "200" }, fresh);
        if (use.notModified > 0)
          requests.inc({ system, kind: "read", status: "304" }, use.notModified);
        if (use.writes > 0) requests.inc({ system, kind: "write", status: "2xx" }, use.writes);
      }
    },
    runEvent(event) {
      if (fromGate) return;
      if (event.type === "wait_start") {
        waitEvents = true;
        openWaits.set(event.system, event.reason);
      } else if (event.type === "wait_end") {
        const reason = openWaits.get(event.system);
        openWaits.delete(event.system);
        // A retry's backoff is not a rate-limit wait.
        if (reason !== "retry") waits.inc({ system: event.system }, event.waitedMs / 1000);
      } else if (event.type === "rate_limited" && !waitEvents) {
        waits.inc({ system: event.system }, event.waitMs / 1000);
      }
    },
    gateEvent(event) {
      if (event.type === "request")
        requests.inc({ system: event.system, kind: event.kind, status: String(event.status) });
      else if (event.type === "wait_start") openWaits.set(event.system, event.reason);
      else if (event.type === "wait_end") {
        const reason = openWaits.get(event.system);
        openWaits.delete(event.system);
        if (reason !== "retry") waits.inc({ system: event.system }, event.waitedMs / 1000);
      }
    },
    delivery(source, outcome) {
      deliveries.inc({ source, outcome });
    },
    async render() {
      items.reset();
      for (const f of opts.figures()) {
        for (const [kind, n] of Object.entries(f.items)) items.set({ job: f.job, kind }, n);
        conflicts.set({ job: f.job }, f.conflictsOpen);
        failures.set({ job: f.job }, f.failuresParked);
      }
      return registry.metrics();
    },
  };
}
