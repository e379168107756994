import { limitsFor, type ResolvedJob } from "../config/load.js";
import { estimateDuration, type WriteLimits } from "../report/estimate.js";
import type { Report, ReportDurationEstimate } from "../report/types.js";

/**
 * The duration estimate of a job's dry run: its estimated writes against the job's configured
 * write limits (the vendors' published defaults where none are set).
 */
export function durationEstimator(
  resolved: ResolvedJob,
): (report: Report) => ReportDurationEstimate | undefined {
  const target = resolved.target;
  return (report) =>
    estimateDuration({
      writes: report.estimatedWrites ?? {},
      limits: {
        tinypm: writeLimits(limitsFor("tinypm", resolved.tinypm.limits)),
        [target.type]: writeLimits(limitsFor(target.type, target.limits)),
      },
      mode: report.mode,
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
