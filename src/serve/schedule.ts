import { Cron } from "croner";
import { DURATION_PATTERN, type ScheduleConfig } from "../config/schema.js";

/** A job's schedule when the config gives none: every 5 minutes. */
export const DEFAULT_SCHEDULE: ScheduleConfig = { every: "5m" };

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };

/** `30s` → 30, `5m` → 300, `1h` → 3600 (the config schema has checked the form). */
export function everySeconds(every: string): number {
  const m = DURATION_PATTERN.exec(every);
  if (m === null) throw new RangeError(`"${every}" is not a duration such as 30s, 5m or 1h`);
  return Number(m[1]) * (UNIT_SECONDS[m[2] ?? "s"] ?? 1);
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
