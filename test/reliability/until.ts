import { setTimeout as delay } from "node:timers/promises";

/** Polls until `check` gives a value (generous deadline: the machine may be loaded). */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms: number,
  everyMs = 500,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(everyMs);
  }
}
