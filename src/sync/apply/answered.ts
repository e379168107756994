import type { WorkItem } from "../../core/model.js";

/**
 * The item the base is taken from after a write: the fields this update wrote (`wrote`) as the
 * service answered them (its own normalisation of what was sent), every other field as the run
 * read it. The write's answer is the whole item as it is now, so it also carries what a person
 * changed between the run's read and the write's read-back (GitHub's PATCH takes no If-Match;
 * tinyPM's update reads the item back after its PUT); taking those values into the base would
 * make the next run see them as already synced and drop them for good. A written field a person
 * saved again between the write and its read-back cannot be told from the service's
 * normalisation here: the adapter tells them apart and answers such a field as sent, so that the
 * base keeps what was written and the next run carries the person's value back (tinyPM stores
 * what it is sent; Jira asks the changelog whether the field changed again after its own
 * change, only when the field reads back different from what was sent: jira/read-back.ts).
 */
export function answeredOver(
  read: WorkItem,
  answered: WorkItem,
  wrote: ReadonlySet<string>,
): WorkItem {
  if (answered === read) return answered;
  const item: Record<string, unknown> = { ...read };
  const after = answered as unknown as Record<string, unknown>;
  for (const key of wrote) item[key] = after[key];
  item.updatedAt = answered.updatedAt ?? read.updatedAt;
  item.url = answered.url ?? read.url;
  return item as unknown as WorkItem;
}
