import type { SystemName, WorkItem } from "../../core/model.js";
import type { SyncEvent } from "../events.js";

/** Told each item a read finds, in order; `restart` when a retried read starts over. */
export interface ReadCount {
  item(item: WorkItem): void;
  restart(): void;
  /** The read is over: its last count is told. */
  end(): void;
}

/** Emits at most one `read_progress` event per this many ms (the display repaints on its own). */
const EVERY_MS = 100;

/**
 * Counts what a read of `system` finds and tells `emit` (`read_progress` events, throttled; the
 * last count always told by `end`): what progress displays show
 * while nothing is planned yet. Stories are counted apart when the read knows how many to expect.
 */
export function readCount(
  emit: ((e: SyncEvent) => void) | undefined,
  system: SystemName,
  storiesTotal?: number,
  now: () => number = Date.now,
): ReadCount {
  let items = 0;
  let stories = 0;
  let last = 0;
  const tell = (final = false): void => {
    last = now();
    emit?.({
      type: "read_progress",
      system,
      items,
      ...(storiesTotal !== undefined && { stories, storiesTotal }),
      ...(final && { final }),
    });
  };
  tell();
  return {
    item(item) {
      items++;
      if (item.kind === "story") stories++;
      if (now() - last >= EVERY_MS) tell();
    },
    restart() {
      items = 0;
      stories = 0;
      tell();
    },
    end() {
      tell(true);
    },
  };
}
