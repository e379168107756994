import { createHash } from "node:crypto";
import type { SystemName } from "../core/model.js";
import type { SharedBudget } from "../core/shared-budget.js";
import {
  createGate,
  type Gate,
  type GateOptions,
  type RunGate,
  type RunGateOptions,
} from "./gate.js";
import type { GateLimits } from "./gate-limits.js";
import { realClock, type Clock } from "./virtual-clock.js";

/** Who a gate belongs to: limits are a token's, not a job's. */
export interface GateOwner {
  readonly system: SystemName;
  readonly baseUrl: string;
  /** Hashed into the key; never kept. */
  readonly token: string;
}

/** A run's handle on a shared gate; `close` lets the gate go once no run holds it. */
interface SharedRunGate extends RunGate {
  close(): void;
}

interface Entry {
  readonly gate: Gate;
  holders: number;
  /** What the gate was built with: an idle gate built otherwise is replaced. */
  readonly built: {
    readonly limits: string;
    readonly clock: Clock;
    readonly policy: unknown;
    readonly budget: SharedBudget | undefined;
  };
  /** Clock time the last run let go of it (its windows still count until they have passed). */
  idleSince: number;
}

const gates = new Map<string, Entry>();

/** `system baseUrl token-hash`: the token itself is never a key, a log field or a message. */
export function gateKey(owner: GateOwner): string {
  const hash = createHash("sha256").update(owner.token).digest("hex").slice(0, 16);
  return `${owner.system} ${owner.baseUrl.replace(/\/+$/, "")} ${hash}`;
}

/**
 * The process-wide gate of `owner`'s token, created with `limits` by its first user: several
 * jobs (or `serve`'s scheduled runs) using one token share one budget. Each run gets its own
 * view (signal, events, counters, wait budget). The gate outlives its runs for as long as its
 * windows remember their requests (an hour): the next job or run of the token starts where the
 * last one left the windows, not with empty ones.
 * With `budget` (a state several processes share), the token's writes are also booked there
 * under the same key, so that all the processes together keep its write limits.
 */
export function openSharedGate(
  owner: GateOwner,
  limits: GateLimits,
  run: RunGateOptions,
  extra: Omit<GateOptions, "system" | "limits" | "shared"> & {
    readonly budget?: SharedBudget | undefined;
  } = {},
): SharedRunGate {
  const key = gateKey(owner);
  const { budget, ...options } = extra;
  const built = {
    limits: JSON.stringify(limits),
    clock: options.clock ?? realClock,
    policy: options.policy,
    budget,
  };
  dropExpired();
  let entry = gates.get(key);
  if (entry?.holders === 0 && !sameBuild(entry.built, built)) {
    // Idle and built for other limits (a reloaded config), another clock or state: rebuilt.
    gates.delete(key);
    entry = undefined;
  }
  if (entry === undefined) {
    const shared = budget === undefined ? undefined : { budget, key };
    const gate = createGate({ system: owner.system, limits, ...options, shared });
    entry = { gate, holders: 0, built, idleSince: 0 };
    gates.set(key, entry);
  }
  const held = entry;
  held.holders++;
  let closed = false;
  const runGate = held.gate.forRun(run);
  return {
    ...runGate,
    close() {
      if (closed) return;
      closed = true;
      runGate.release();
      // Kept while its windows may still hold writes: the next job or run of the same token
      // (the next job of `sync`, serve's next scheduled run) counts them too.
      if (--held.holders === 0) held.idleSince = held.built.clock.now();
    },
  };
}

function sameBuild(a: Entry["built"], b: Entry["built"]): boolean {
  return (
    a.limits === b.limits && a.clock === b.clock && a.policy === b.policy && a.budget === b.budget
  );
}

/** Real ms a gate's windows remember a request: its longest window (an hour, or a keyed one). */
function memoryMs(limits: GateLimits): number {
  const keyed = Math.max(0, ...(limits.keyWindows ?? []).map((w) => w.ms));
  return Math.max(3_600_000, keyed) / (limits.timeScale ?? 1);
}

/** Forgets the idle gates whose windows no longer hold any request (bounded memory). */
function dropExpired(): void {
  for (const [key, entry] of gates) {
    const idleMs = entry.built.clock.now() - entry.idleSince;
    if (entry.holders === 0 && idleMs > memoryMs(entry.gate.limits)) {
      gates.delete(key);
    }
  }
}

/** How many runs hold the gate of `owner` (0: none open). For tests and `serve`'s metrics. */
export function sharedGateHolders(owner: GateOwner): number {
  return gates.get(gateKey(owner))?.holders ?? 0;
}

/** One job's use of a token: the limits its config gives the token's system. */
export interface TokenUse {
  readonly job: string;
  readonly owner: GateOwner;
  readonly limits: GateLimits;
}

/** The limits where a smaller number is stricter. */
const NUMERIC_LIMITS = [
  "concurrency",
  "readsPerSecond",
  "writesPerMinute",
  "writesPerHour",
  "timeoutMs",
] as const;

/**
 * The limits of `owner`'s gate, given every job of the config that may open it: the strictest
 * value of each limit among the jobs using the same token (limits belong to a token, so the
 * first job to open the gate must not decide alone). `warning` names two jobs that disagree and
 * the limits they disagree on; it is undefined when every job configures the same limits.
 */
export function tokenLimits(
  owner: GateOwner,
  own: GateLimits,
  uses: readonly TokenUse[],
): { limits: GateLimits; warning?: string | undefined } {
  const key = gateKey(owner);
  const sharing = uses.filter((u) => gateKey(u.owner) === key);
  const merged: Record<string, unknown> = { ...own };
  const differ = new Set<string>();
  let other: TokenUse | undefined;
  let first: TokenUse | undefined;
  for (const use of sharing) {
    first ??= use;
    for (const name of NUMERIC_LIMITS) {
      const value = use.limits[name];
      const current = merged[name] as number | undefined;
      if (value === undefined) continue;
      if (current !== undefined && current !== value) {
        differ.add(name);
        if (use !== first) other ??= use;
      }
      merged[name] = current === undefined ? value : Math.min(current, value);
    }
  }
  if (differ.size === 0 || first === undefined) return { limits: merged };
  const second = other ?? sharing.find((u) => u !== first) ?? first;
  const names = [...differ].sort();
  const what = names.map((n) => `${n} ${String(merged[n])}`).join(", ");
  return {
    limits: merged,
    warning:
      `Jobs "${first.job}" and "${second.job}" use the same ${owner.system} token (${owner.baseUrl}) ` +
      `with different limits (${names.join(", ")}); both use the strictest: ${what}.`,
  };
}

const warned = new Set<string>();

/** True the first time `warning` is seen in this process: the warning is logged once. */
export function firstTimeWarned(warning: string): boolean {
  if (warned.has(warning)) return false;
  warned.add(warning);
  return true;
}
