import { isAmbiguous } from "../../gate/retry.js";
import { call, type EngineContext } from "../context.js";

/** What an ensure came to: the thing, and whether it was found rather than made by this call. */
export interface Ensured<T> {
  readonly value: T;
  /** Found by the look (made by an earlier attempt, or a create whose answer was lost). */
  readonly found: boolean;
}

/** One thing the apply step makes sure exists, without ever making it twice. */
export interface EnsureStep<T> {
  /** For events and errors: `create story "Login"`. */
  readonly name: string;
  /** Makes it: one call that must not be sent twice unless a look showed it did nothing. */
  readonly create: () => Promise<T>;
  /**
   * Looks for what `create` makes (by marker, anchor, content); `undefined`: not there. Absent
   * when `create` looks first itself (a tracker's `ensureIteration`).
   */
  readonly find?: (() => Promise<T | undefined>) | undefined;
  /** An earlier attempt may have made it already (a bulk create that failed for it): look first. */
  readonly lookFirst?: boolean | undefined;
}

/**
 * Makes sure one thing exists — look up, then create — as an explicit step of the apply. A
 * create that fails ambiguously (timeout, reset, 5xx: it may have been made) is looked for at
 * once; only when the look shows it was not made is it created again, after the backoff of the
 * request gate's retry policy (`lanes.retries`, the gate's own turns: one retry loop, one `retry`
 * event, one count); a look that failed ambiguously is made again, under the same turns, before
 * any create. A refusal (auth, payload) or the policy's end fail the step:
 * the intent recorded before the create stays, and the next run settles it by marker or anchor.
 *
 * @example
 * const { value, found } = await ensure(ctx, "target", { name: 'create story "Login"',
 *   create: () => ctx.target.create(draft), find: () => ctx.target.findByMarker(draft.marker) });
 */
export async function ensure<T>(
  ctx: Pick<EngineContext, "lanes" | "targetSystem">,
  side: "tinypm" | "target",
  step: EnsureStep<T>,
): Promise<Ensured<T>> {
  const system = side === "tinypm" ? "tinypm" : ctx.targetSystem;
  const find = step.find;
  const look = async (): Promise<T | undefined> =>
    find === undefined
      ? undefined
      : call(ctx, side, { name: `look for ${step.name}`, kind: "read", run: find });
  let turns: ReturnType<EngineContext["lanes"]["retries"]> | undefined;
  let lookFirst = step.lookFirst === true;
  for (;;) {
    let failure: unknown;
    try {
      if (lookFirst) {
        const earlier = await look();
        if (earlier !== undefined) return { value: earlier, found: true };
      }
      try {
        const value = await call(ctx, side, { name: step.name, kind: "write", run: step.create });
        return { value, found: false };
      } catch (error) {
        if (!isAmbiguous(error)) throw error;
        failure = error;
      }
      // It may have been made: look before anything else.
      const made = await look();
      if (made !== undefined) return { value: made, found: true };
      // Not made (or `create` looks itself): the next attempt creates at once.
      lookFirst = false;
    } catch (error) {
      // The look failed (its requests already retried by the gate, or a write it finishes — a
      // Jira create's transitions — failed ambiguously): look again before any create.
      if (!isAmbiguous(error) || error === failure) throw error;
      failure = error;
      lookFirst = true;
    }
    turns ??= ctx.lanes.retries(system, step.name);
    if (!(await turns.next(failure))) throw failure as Error;
  }
}

/**
 * A write that states values (an update of fields and its workflow moves, a close, a delete, a
 * marker write): safe to run again as a whole after an ambiguous failure, since a second run sets
 * the same values from what it reads — but some of its requests are not safe for the gate to
 * repeat on their own (Jira's transition POSTs). Run again under the gate's retry turns, like an
 * ensure whose write looks itself.
 */
export async function rewrite<T>(
  ctx: Pick<EngineContext, "lanes" | "targetSystem">,
  side: "tinypm" | "target",
  step: { readonly name: string; readonly run: () => Promise<T> },
): Promise<T> {
  return (await ensure(ctx, side, { name: step.name, create: step.run })).value;
}
