import { PayloadInvalidError } from "./errors.js";
import type { ItemKind } from "./model.js";
import type { UnreadableItem } from "./tracker.js";

/** Where a read of many items hands one it cannot read (`CallOptions.onUnreadable`). */
export type OnUnreadable = ((item: UnreadableItem) => void) | undefined;

/** The item a payload names, read without the schema (it may have failed it). */
export interface ItemIdentity {
  readonly kind: ItemKind;
  readonly id: string;
  readonly title?: string | undefined;
}

/**
 * Reads one item of a many-item read. Its own payload failing validation makes it unreadable:
 * handed to `onUnreadable` with `describe`'s error (which item, what is wrong, where) and left out
 * (`undefined`) when the caller takes such items and the payload says which item it is; else
 * thrown. Every other error (unreachable, token refused, interrupted) is thrown: it is not the
 * item's.
 */
export async function itemOrUnreadable<T>(
  who: ItemIdentity | undefined,
  onUnreadable: OnUnreadable,
  read: () => T | Promise<T>,
  describe: (who: ItemIdentity, error: PayloadInvalidError) => PayloadInvalidError,
): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (onUnreadable === undefined || who === undefined || !(error instanceof PayloadInvalidError))
      throw error;
    onUnreadable({ ...who, error: describe(who, error) });
    return undefined;
  }
}
