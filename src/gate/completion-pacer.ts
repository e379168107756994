import { sleep as wallSleep } from "../core/sleep.js";

/**
 * Completion-anchored write windows, the request gate's pacing for services that count writes
 * the way GitHub counts content creation (80 per minute, 500 per hour by default), so that the
 * limit is never hit. No retry happens here (the gate retries).
 *
 * Two rules, both on the client's clock:
 * - spacing: writes start at least half of `60 s / writesPerMinute` apart (smooth, no bursts;
 *   the half lets the pacer catch up after a slow answer instead of losing that time for good);
 * - sliding windows anchored on completions: write k may start only one window after write
 *   k − N *finished* (N = writesPerMinute for the minute, writesPerHour for the hour). GitHub
 *   received write k − N before it answered, and receives write k after it is sent, so the two
 *   are a full window apart on GitHub's side whatever the network latency; the price is one
 *   round trip per N writes (≥ 98% of the permitted rate at GitHub's latencies).
 * - when the hour window binds, a burst of up to 500 writes starts: its first write waits until
 *   every write of the burst can follow at the minute's pace and still be an hour after the
 *   answer of the write 500 before it. Bursts stay as dense as the first one; followed write by
 *   write, each burst would inherit every earlier burst's slow answers (−9% by the twelfth).
 *
 * `timeScale` runs the clock N times faster: a testing and benchmark aid for sandboxes that run
 * their limits on a scaled clock too.
 */

export interface CompletionPacerOptions {
  /** Default 80 (GitHub's documented content-creation limit). */
  readonly writesPerMinute?: number | undefined;
  /** Default 500. */
  readonly writesPerHour?: number | undefined;
  /** Clock speed-up for tests and benchmarks against a scaled sandbox. Default 1. */
  readonly timeScale?: number | undefined;
  readonly now?: (() => number) | undefined;
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

interface CompletionPacerState {
  readonly writesPerMinute: number;
  readonly writesPerHour: number;
  readonly timeScale: number;
  /** Real milliseconds at least between two write starts. */
  readonly intervalMs: number;
  /** Writes let through so far. */
  readonly granted: number;
  /** Real milliseconds an `acquire()` made now would wait at least. */
  readonly delayMs: number;
}

/** Call when the write's answer (or error) has arrived. */
type CompletionRelease = () => void;

interface CompletionPacer {
  /**
   * Waits for the next write slot and takes it; call the returned function once answered.
   * `waitUntil` does each wait instead of the pacer's own sleep (the caller's: it may announce
   * the wait, or refuse one longer than the run may spend by rejecting).
   */
  acquire(
    signal?: AbortSignal,
    waitUntil?: (until: number) => Promise<void>,
  ): Promise<CompletionRelease>;
  /** Real milliseconds until the next slot (at least; an unfinished write may add to it). */
  delayMs(): number;
  state(): CompletionPacerState;
}

interface CompletionWindow {
  readonly count: number;
  readonly ms: number;
}

interface CompletionPlan {
  readonly intervalMs: number;
  readonly windows: readonly CompletionWindow[];
}

/** The minimum gap between write starts, as a share of the average gap at the full rate. */
const SPACING = 0.5;
/** Clock granularity guard (real ms) added to each window. */
const GUARD_MS = 2;

/** The pacing constants, in real milliseconds. */
export function planPacing(opts: CompletionPacerOptions): CompletionPlan {
  const perMinute = positive(opts.writesPerMinute, 80, "writesPerMinute");
  const perHour = positive(opts.writesPerHour, 500, "writesPerHour");
  const scale = positive(opts.timeScale, 1, "timeScale");
  const windows: CompletionWindow[] = [];
  if (Number.isFinite(perMinute))
    windows.push({ count: Math.floor(perMinute), ms: 60_000 / scale + GUARD_MS });
  if (Number.isFinite(perHour))
    windows.push({ count: Math.floor(perHour), ms: 3_600_000 / scale + GUARD_MS });
  return { intervalMs: (60_000 / perMinute / scale) * SPACING, windows };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(v > 0)) throw new RangeError(`pacer ${name} must be a positive number, got ${v}`);
  return v;
}

/**
 * One granted write: when it was scheduled to start (a late timer does not push later slots
 * back: the windows keep it safe) and when its answer arrived (if it has).
 */
interface SlotRecord {
  readonly start: number;
  end?: number | undefined;
}

/** The granted writes, oldest first, as `nextSlot` reads them. */
export interface SlotList {
  readonly length: number;
  start(index: number): number;
  /** `undefined` while the write is unanswered. */
  end(index: number): number | undefined;
}

/** A list of plain records (tests, and the reading of a few slots). */
export function slotList(records: readonly SlotRecord[]): SlotList {
  return {
    length: records.length,
    start: (i) => records[i]?.start ?? Number.NaN,
    end: (i) => records[i]?.end,
  };
}

/**
 * The pacer's own list: two growing arrays of numbers, the oldest dropped by whole halves. A
 * record object per write held the run's every write while a window was larger than the run
 * (lifted limits: 15 MB of slots at 50,000 items, 115 bytes a write); packed numbers hold 16.
 */
class SlotLog implements SlotList {
  #starts = new Float64Array(64);
  #ends = new Float64Array(64);
  /** Index in the arrays of the oldest slot kept. */
  #head = 0;
  /** Writes granted before the oldest kept: a slot's number is `dropped + its index`. */
  #dropped = 0;
  length = 0;

  start(i: number): number {
    return i >= 0 && i < this.length ? (this.#starts[this.#head + i] ?? Number.NaN) : Number.NaN;
  }

  end(i: number): number | undefined {
    if (i < 0 || i >= this.length) return undefined;
    const e = this.#ends[this.#head + i] ?? Number.NaN;
    return Number.isNaN(e) ? undefined : e;
  }

  /** Appends a write started at `start`; returns its number, for `finish`. */
  push(start: number): number {
    if (this.#head + this.length === this.#starts.length) this.#grow();
    this.#starts[this.#head + this.length] = start;
    this.#ends[this.#head + this.length] = Number.NaN;
    this.length++;
    return this.#dropped + this.length - 1;
  }

  /** Notes the answer of write number `n` (a write already dropped is forgotten). */
  finish(n: number, at: number): void {
    const i = n - this.#dropped;
    if (i >= 0 && i < this.length && Number.isNaN(this.#ends[this.#head + i] ?? 0))
      this.#ends[this.#head + i] = at;
  }

  /** Keeps the newest `keep` writes. */
  keepLast(keep: number): void {
    if (this.length <= keep) return;
    const drop = this.length - keep;
    this.#head += drop;
    this.#dropped += drop;
    this.length = keep;
  }

  #grow(): void {
    // Room at the front (dropped slots) is reused first; else the arrays double.
    const size =
      this.length * 2 > this.#starts.length ? this.#starts.length * 2 : this.#starts.length;
    const starts = new Float64Array(size);
    const ends = new Float64Array(size);
    starts.set(this.#starts.subarray(this.#head, this.#head + this.length));
    ends.set(this.#ends.subarray(this.#head, this.#head + this.length));
    this.#starts = starts;
    this.#ends = ends;
    this.#head = 0;
  }
}

/**
 * The scheduled start of the next write (at most one interval in the past: then it may go now), given the previous writes (oldest first), or
 * `undefined` when it depends on a write that has not finished yet. Pure.
 */
export function nextSlot(args: {
  now: number;
  slots: SlotList;
  plan: CompletionPlan;
}): number | undefined {
  const { now, slots, plan } = args;
  // A slot up to one interval in the past is still granted as scheduled: a late timer then does
  // not push every later write back (the windows below keep GitHub's side safe regardless).
  let t =
    slots.length === 0
      ? now
      : Math.max(now - plan.intervalMs, slots.start(slots.length - 1) + plan.intervalMs);
  for (const [index, w] of plan.windows.entries()) {
    if (slots.length < w.count) continue;
    const anchorEnd = slots.end(slots.length - w.count);
    if (anchorEnd === undefined) return undefined;
    const own = anchorEnd + w.ms;
    // A larger window that binds starts a burst: start it late enough for the whole burst to run
    // at the pace of the smaller windows, rather than following the previous burst's answers
    // write by write (which would carry each burst's latency jitter into every later burst).
    t = Math.max(t, own > t && index > 0 ? burstStart(slots, plan, index) : own);
  }
  return t;
}

/**
 * The earliest start of a burst that the window `index` (count N, span W) allows to run at the
 * full pace of the spacing and the smaller windows: the latest, over the next N writes j, of
 * (end of write j − N) + W − (the least time the smaller rules put between the burst's first
 * write and write j). Each later write of the burst is then clear of the window by construction.
 * Writes j − N not yet answered are left to the per-write rule.
 */
function burstStart(slots: SlotList, plan: CompletionPlan, index: number): number {
  const w = plan.windows[index];
  if (w === undefined) return Number.NEGATIVE_INFINITY;
  const smaller = plan.windows.slice(0, index);
  const base = slots.length - w.count;
  /** least[m]: the least time between the burst's first write and its write m. */
  const least: number[] = [];
  let start = Number.NEGATIVE_INFINITY;
  for (let m = 0; m < w.count; m++) {
    let gap = m === 0 ? 0 : (least[m - 1] ?? 0) + plan.intervalMs;
    for (const s of smaller)
      if (m >= s.count) gap = Math.max(gap, (least[m - s.count] ?? 0) + s.ms);
    least.push(gap);
    const end = slots.end(base + m);
    if (end !== undefined) start = Math.max(start, end + w.ms - gap);
  }
  return start;
}

/** A pacer for one token: callers are served in order, one slot each. */
export function createCompletionPacer(opts: CompletionPacerOptions = {}): CompletionPacer {
  const plan = planPacing(opts);
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? wallSleep;
  const keep = Math.max(1, ...plan.windows.map((w) => w.count));
  const slots = new SlotLog();
  const finished: (() => void)[] = [];
  let tail: Promise<void> = Promise.resolve();
  let granted = 0;

  const untilFinished = (): Promise<void> => new Promise((resolve) => finished.push(resolve));
  const take = async (
    signal?: AbortSignal,
    waitUntil?: (until: number) => Promise<void>,
  ): Promise<CompletionRelease> => {
    let scheduled: number;
    for (;;) {
      const t = now();
      const slot = nextSlot({ now: t, slots, plan });
      if (slot === undefined) await untilFinished();
      else if (slot > t) await (waitUntil ? waitUntil(slot) : sleep(slot - t, signal));
      else {
        scheduled = slot;
        break;
      }
    }
    const n = slots.push(scheduled);
    if (slots.length > keep * 2) slots.keepLast(keep);
    granted++;
    let answered = false;
    return () => {
      if (answered) return;
      answered = true;
      slots.finish(n, now());
      for (const f of finished.splice(0)) f();
    };
  };
  const delayMs = (): number => {
    const slot = nextSlot({ now: now(), slots, plan });
    return slot === undefined ? plan.intervalMs : Math.max(0, slot - now());
  };
  return {
    acquire(signal, waitUntil) {
      const result = tail.then(() => take(signal, waitUntil));
      tail = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
    delayMs,
    state() {
      return {
        writesPerMinute: opts.writesPerMinute ?? 80,
        writesPerHour: opts.writesPerHour ?? 500,
        timeScale: opts.timeScale ?? 1,
        intervalMs: plan.intervalMs,
        granted,
        delayMs: delayMs(),
      };
    },
  };
}
