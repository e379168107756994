import type { SyncEvent } from "../sync/events.js";

/**
 * What a running run does now, in words, from its events — `reading tinyPM · 12 requests ·
 * 5/24 stories read` — so that the dashboard shows a run that moves, not `running` alone.
 */
export interface RunActivity {
  event(e: SyncEvent): void;
  text(): string | undefined;
}

export function runActivity(): RunActivity {
  let phase: string | undefined;
  let requests = 0;
  let read: Extract<SyncEvent, { type: "read_progress" }> | undefined;
  let progress: Extract<SyncEvent, { type: "progress" }> | undefined;
  return {
    event(e) {
      if (e.type === "phase" && e.phase !== phase) {
        phase = e.phase;
        requests = 0;
        read = undefined;
      } else if (e.type === "request") requests++;
      else if (e.type === "read_progress") read = e;
      else if (e.type === "progress") progress = e;
    },
    text() {
      if (phase === undefined) return undefined;
      if (progress !== undefined && progress.total > 0)
        return `${phase} · ${progress.done}/${progress.total} items`;
      const parts = [phase, `${requests} ${requests === 1 ? "request" : "requests"}`];
      if (read !== undefined)
        parts.push(
          read.storiesTotal === undefined || read.stories === undefined
            ? `${read.items} ${read.items === 1 ? "item" : "items"} read`
            : `${read.stories}/${read.storiesTotal} stories read`,
        );
      return parts.join(" · ");
    },
  };
}
