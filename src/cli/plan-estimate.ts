import { limitsFor, type ResolvedJob } from "../config/load.js";
import { estimateDuration, type WriteLimits } from "../report/estimate.js";
import type { Report, ReportDurationEstimate } from "../report/types.js";
import type { WriteForecaster } from "./progress.js";

/**
 * The duration estimate of a job's dry run: its estimated writes against the job's configured
 * write limits (the vendors' published defaults where none are set).
 */
export function durationEstimator(
  resolved: ResolvedJob,
): (report: Report) => ReportDurationEstimate | undefined {
  const estimate = durationEstimatorFor(resolved);
  return (report) => estimate(report.estimatedWrites ?? {}, report.mode);
}

/**
 * How long a run's writes take at the job's write limits (the progress display's ETA floor):
 * the same schedule as the dry run's estimate, from the moment the run is about to write.
 */
export function writeForecaster(resolved: ResolvedJob): WriteForecaster {
  const estimate = durationEstimatorFor(resolved);
  return (writes) => {
    const d = estimate(writes, "sync");
    return d === undefined ? undefined : { durationMs: d.durationMs, boundBy: d.boundBy };
  };
}

function durationEstimatorFor(
  resolved: ResolvedJob,
): (
  writes: Readonly<Record<string, number>>,
  mode: "migrate" | "sync",
) => ReportDurationEstimate | undefined {
  const target = resolved.target;
  return (writes, mode) =>
    estimateDuration({
      writes,
      limits: {
        tinypm: writeLimits(limitsFor("tinypm", resolved.tinypm.limits)),
        [target.type]: writeLimits(limitsFor(target.type, target.limits)),
      },
      mode,
      importApi: target.type === "github" ? target.importApi : undefined,
    });
}

function writeLimits(l: {
  writesPerMinute?: number | undefined;
  writesPerHour?: number | undefined;
}): WriteLimits {
  return {
    writesPerMinute: l.writesPerMinute ?? Number.POSITIVE_INFINITY,
    writesPerHour: l.writesPerHour ?? Number.POSITIVE_INFINITY,
  };
}
