import { sleep } from "../core/sleep.js";
import type { ResolvedJob } from "../config/load.js";
import { ExitCode, InterruptedError, RateLimitError, SyncError } from "../core/errors.js";
import type { RunReport } from "../sync/engine.js";
import type { CliContext } from "./context.js";
import { renderError } from "./render-error.js";
import type { ConfigSession } from "./session.js";
import {
  backoffMs,
  createOutageTracker,
  DEFAULT_OUTAGE_POLICY,
  isOutage,
  type OutagePolicy,
} from "./watch-outages.js";

interface Watched {
  readonly resolved: ResolvedJob;
  /** Epoch ms of its next run. */
  due: number;
  /** Tries in a row that met a system down. */
  failures: number;
  /** The system it last found down. */
  downSystem: string | undefined;
  /** Stopped by an error no retry can fix (said once). */
  stopped: boolean;
}

/**
 * `sync --watch`: runs every job every `intervalMs` until SIGINT/SIGTERM. A job that finds a
 * system down (unreachable, timing out, asking to wait) is tried again after a bounded,
 * jittered exponential backoff; the watcher says once when a system goes down, again at a slow
 * cadence while it stays down, and once when it is back. A job that fails with an error no retry
 * can fix (config, mapping, token refused) is reported once and left out; the others go on.
 * The watcher ends only on a signal (exit 0 between runs) or when every job is left out.
 */
export async function watchJobs(
  ctx: CliContext,
  session: ConfigSession,
  opts: {
    intervalMs: number;
    runJob: (resolved: ResolvedJob) => Promise<RunReport>;
    settle: (runs: readonly RunReport[]) => void;
    policy?: OutagePolicy | undefined;
  },
): Promise<void> {
  const policy = opts.policy ?? DEFAULT_OUTAGE_POLICY;
  const outages = createOutageTracker(policy);
  const log = session.logger;
  const jobs: Watched[] = session.loaded.jobs.map((resolved) => ({
    resolved,
    due: 0,
    failures: 0,
    downSystem: undefined,
    stopped: false,
  }));
  let lastFatal: unknown;
  for (;;) {
    const runs: RunReport[] = [];
    for (const job of jobs) {
      if (job.stopped || job.due > Date.now()) continue;
      if (ctx.signal.aborted) break;
      const name = job.resolved.job.name;
      try {
        runs.push(await opts.runJob(job.resolved));
        job.failures = 0;
        job.due = Date.now() + opts.intervalMs;
        if (job.downSystem !== undefined) {
          const back = outages.reached(job.downSystem, Date.now());
          if (back !== undefined) log.info({ system: job.downSystem, job: name }, back);
          job.downSystem = undefined;
        }
      } catch (error) {
        // A run cut short by a signal ends the watcher (exit 130), whatever it threw.
        if (error instanceof InterruptedError || stopRequested(ctx)) throw error;
        if (isOutage(error)) {
          job.failures++;
          const now = Date.now();
          const asked = error instanceof RateLimitError ? error.retryAfterMs : 0;
          const wait = Math.max(backoffMs(job.failures, policy), asked);
          job.due = now + wait;
          job.downSystem = error.system;
          const line = outages.failed(
            error.system,
            `[${error.code}] ${error.message}`,
            now,
            job.due,
          );
          if (line !== undefined)
            log.warn({ system: error.system, job: name, code: error.code, retryInMs: wait }, line);
          continue;
        }
        job.stopped = true;
        lastFatal = error;
        log.error(
          { job: name, code: error instanceof SyncError ? error.code : "internal" },
          `job ${name} left out of the watch until the problem is fixed and the watcher restarted:\n${renderError(error)}`,
        );
      }
    }
    if (runs.length > 0) opts.settle(runs);
    const active = jobs.filter((j) => !j.stopped);
    if (active.length === 0) throw lastFatal;
    const next = Math.min(...active.map((j) => j.due));
    const stopped = await Promise.race([
      ctx.waitForStop().then(() => true),
      sleep(Math.max(0, next - Date.now())).then(() => false),
    ]);
    if (stopped || ctx.signal.aborted) {
      log.info("stopped between runs; state is consistent");
      ctx.exitCode = ExitCode.ok;
      return;
    }
  }
}

/** Read through a call: TypeScript would otherwise keep the narrowing of an earlier check. */
function stopRequested(ctx: CliContext): boolean {
  return ctx.signal.aborted;
}
