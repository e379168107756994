import type { CreateOutline } from "../../core/tracker.js";

/**
 * The write requests creating these issues costs, as `createItem` (./create.ts) makes them: the
 * create itself, a second call to close an issue whose status is closed, and one to attach a task
 * to its parent as a sub-issue. Pure.
 */
export function createWriteCost(creates: readonly CreateOutline[]): number {
  let writes = 0;
  for (const c of creates) {
    writes += 1;
    if (closes(c.status)) writes += 1;
    if (c.kind === "task") writes += 1;
  }
  return writes;
}

/** Whether an issue created with `status` is closed after its create (`closed`, `closed:…`). */
const closes = (status: string): boolean => status === "closed" || status.startsWith("closed:");
