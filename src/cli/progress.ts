import type { SyncEvent } from "../sync/events.js";
import type { CliContext } from "./context.js";

export interface Progress {
  event(e: SyncEvent): void;
  done(): void;
}

/**
 * A one-line progress display on a terminal (stderr): items done, rate, the current
 * rate-limit wait. Off the terminal it does nothing (the JSON log lines say the same).
 */
export function createProgress(ctx: CliContext): Progress {
  const tty = ctx.stderr.isTTY === true && ctx.env.CI === undefined;
  const started = Date.now();
  let done = 0;
  let failed = 0;
  let waitUntil = 0;
  let last = 0;
  const draw = (force: boolean): void => {
    const now = Date.now();
    if (!tty || (!force && now - last < 100)) return;
    last = now;
    const rate = done / Math.max((now - started) / 1000, 0.001);
    const wait =
      waitUntil > now ? `  rate limit: waiting ${Math.ceil((waitUntil - now) / 1000)} s` : "";
    ctx.stderr.write(
      `\r\x1b[2K${done} items done${failed > 0 ? `, ${failed} parked` : ""}  ${rate.toFixed(1)}/s${wait}`,
    );
  };
  return {
    event(e) {
      if (
        e.type === "created" ||
        e.type === "updated" ||
        e.type === "adopted" ||
        e.type === "deleted"
      )
        done++;
      if (e.type === "failed") failed++;
      if (e.type === "rate_limited") waitUntil = Date.now() + e.waitMs;
      draw(e.type === "rate_limited");
    },
    done() {
      if (tty && done + failed > 0) ctx.stderr.write("\r\x1b[2K");
    },
  };
}
