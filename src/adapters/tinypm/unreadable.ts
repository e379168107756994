import { PayloadInvalidError } from "../../core/errors.js";
import type { UnreadableItem } from "../../core/tracker.js";

/** Where a read of many items hands an item it cannot read (`CallOptions.onUnreadable`). */
export type OnUnreadable = ((item: UnreadableItem) => void) | undefined;

/**
 * Reads one item's documents. A document of its own that cannot be read (malformed or hostile
 * XML, a payload that fails validation) makes the item unreadable: handed to `onUnreadable` and
 * left out (`undefined`) when the caller takes such items, else thrown as it was. Every other
 * error (unreachable, token refused, interrupted) is thrown: it is not the item's.
 */
export async function orUnreadable<T>(
  item: Omit<UnreadableItem, "error">,
  onUnreadable: OnUnreadable,
  read: () => Promise<T | undefined>,
): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (onUnreadable === undefined || !(error instanceof PayloadInvalidError)) throw error;
    onUnreadable({ ...item, error });
    return undefined;
  }
}
