import type { LinkIdentity, LinkRecord, StateStore } from "../../state/store.js";
import type { CreateAction } from "../plan/plan-types.js";
import { isFatal } from "./fatal.js";

/**
 * One finished create on the target, not yet recorded: its intent becomes `link` (whose base is
 * already final: the item and the comments and time entries copied) and `identity` the marker
 * block the create wrote.
 */
export interface PendingConfirm {
  readonly intentId: number;
  readonly link: LinkRecord;
  readonly identity?: LinkIdentity | undefined;
  readonly action: CreateAction;
}

/** Confirmations buffered and committed together (group commit). */
export interface ConfirmGroup {
  /**
   * Buffers a confirmation; a full group starts its commit, and the call waits for the group
   * before it only (if that one is still committing).
   */
  add(confirm: PendingConfirm): Promise<void>;
  /** Commits what is buffered, and rethrows a fatal error of an earlier commit. */
  flush(): Promise<void>;
}

export interface ConfirmGroupOptions {
  /** Confirmations per commit. @default 50 */
  readonly size?: number | undefined;
  /** The longest a confirmation waits for its group to fill. @default 1000 */
  readonly maxWaitMs?: number | undefined;
  /** A confirmation the state refused on its own (not the state being unreachable). */
  readonly onRefused: (confirm: PendingConfirm, error: unknown) => Promise<void>;
}

export const CONFIRM_GROUP_SIZE = 50;
export const CONFIRM_GROUP_WAIT_MS = 1000;

/**
 * Group commit of the confirmations of target creates: each create's intent was committed on its
 * own before the create was sent (that never waits), and its confirmation — link, identity and
 * base in one — joins the group; the group commits in one transaction when `size` are buffered,
 * when the oldest has waited `maxWaitMs`, and on `flush` (the apply's end, an error, a stop).
 * A full group commits in the background while the next one fills (`add` waits only for the
 * group before it); `flush` waits for every commit.
 * A crash meanwhile loses only confirmations: their intents are durable, and the next run finds
 * each created item by the marker the create wrote into it and links it (reconcile.ts) — never a
 * second create. A lost lease refuses the commit the same way: the next holder settles them.
 */
export function confirmGroup(state: StateStore, o: ConfirmGroupOptions): ConfirmGroup {
  const size = o.size ?? CONFIRM_GROUP_SIZE;
  const maxWaitMs = o.maxWaitMs ?? CONFIRM_GROUP_WAIT_MS;
  let buffered: PendingConfirm[] = [];
  let timer: NodeJS.Timeout | undefined;
  // Commits run one after another, in the order their groups filled.
  let chain: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  // Set by a commit in the background, while `add` awaits.
  const failed = (): boolean => failure !== undefined;

  const commitOneByOne = async (group: readonly PendingConfirm[]): Promise<void> => {
    for (const c of group) {
      try {
        await state.confirmIntent(c.intentId, c.link, c.identity);
      } catch (error) {
        if (isFatal(error)) throw error;
        await o.onRefused(c, error);
      }
    }
  };
  const commit = async (group: readonly PendingConfirm[]): Promise<void> => {
    try {
      await state.transaction(async (tx) => {
        for (const c of group) await tx.confirmIntent(c.intentId, c.link, c.identity);
      });
    } catch (error) {
      if (isFatal(error)) throw error;
      // One confirmation the state refuses rolls the group back: the others go on their own.
      await commitOneByOne(group);
    }
  };
  const schedule = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const group = buffered;
    buffered = [];
    if (group.length === 0) return;
    chain = chain.then(
      () =>
        commit(group).catch((error: unknown) => {
          failure ??= { error };
        }),
      () => undefined,
    );
  };
  const flush = async (): Promise<void> => {
    schedule();
    await chain;
    if (failure !== undefined) {
      const { error } = failure;
      failure = undefined;
      throw error;
    }
  };
  return {
    add: async (confirm) => {
      buffered.push(confirm);
      if (failure !== undefined) {
        await flush();
        return;
      }
      if (buffered.length >= size) {
        // The full group commits while the run goes on creating (the commit is a round trip per
        // confirmation on PostgreSQL, on another core): the run waits only for the group before
        // it, so at most two groups are ever buffered or committing.
        const before = chain;
        schedule();
        await before;
        if (failed()) await flush();
        return;
      }
      if (timer === undefined) {
        timer = setTimeout(schedule, maxWaitMs);
        timer.unref();
      }
    },
    flush,
  };
}
