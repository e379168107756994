import { Cron } from "croner";
import type { ScheduleConfig } from "../config/schema.js";
import { durationMs } from "../core/duration.js";

/** A job's schedule when the config gives none: every 5 minutes. */
export const DEFAULT_SCHEDULE: ScheduleConfig = { every: "5m" };

/** `30s` → 30, `5m` → 300, `1h` → 3600 (the config schema has checked the form). */
export function everySeconds(every: string): number {
  const ms = durationMs(every);
  if (ms === undefined) throw new RangeError(`"${every}" is not a duration such as 30s, 5m or 1h`);
  return ms / 1000;
}

/** Words for a schedule, for the dashboard: `every 5m`, `cron 0 * * * *`. */
export function scheduleLabel(schedule: ScheduleConfig): string {
  return "every" in schedule ? `every ${schedule.every}` : `cron ${schedule.cron}`;
}

/** A started schedule: when it fires next, and how to stop it. */
export interface ScheduledJob {
  nextRun(): Date | undefined;
  stop(): void;
}

/**
 * Calls `fire` on the schedule (croner: cron expressions, and intervals as a minimum gap between
 * runs of an every-second pattern). A tick that finds the job busy is the run queue's business:
 * it coalesces.
 */
export function startSchedule(schedule: ScheduleConfig, fire: () => void): ScheduledJob {
  const cron =
    "every" in schedule
      ? new Cron(
          "* * * * * *",
          { interval: everySeconds(schedule.every), startAt: nextStart(schedule.every) },
          fire,
        )
      : new Cron(schedule.cron, fire);
  return {
    nextRun: () => cron.nextRun() ?? undefined,
    stop: () => {
      cron.stop();
    },
  };
}

/** An interval's first tick is one interval after the service starts (the startup run is now). */
function nextStart(every: string): Date {
  return new Date(Date.now() + everySeconds(every) * 1000);
}
