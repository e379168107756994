import { createRandom, type Random } from "./prng.js";

/**
 * Fault injection shared by the bundled servers.
 *
 * A spec is a comma-separated list of rules, `kind[=value][:rate][@route]`:
 * - kinds: `latency=MS`, `500`, `502`, `503`, `429` (with `Retry-After`, value = seconds, default
 *   1), `429-bare` (no `Retry-After`), `403-secondary` (GitHub's secondary limit), `reset`
 *   (connection destroyed), `timeout` (no answer until the client gives up), `truncate` (half a
 *   body, then the connection is cut);
 * - rate: a fraction from 0 to 1 (default 1);
 * - route: `METHOD /path/*` or `/path/*` (`*` matches one segment, `**` any rest), default all.
 *
 * Example: `500:0.1,429=2:0.05@POST /repos/**,latency=50:0.2`.
 * Decisions come from a PRNG seeded per server, in request order: deterministic per seed.
 */
type FaultKind =
  | "latency"
  | "500"
  | "502"
  | "503"
  | "429"
  | "429-bare"
  | "403-secondary"
  | "reset"
  | "timeout"
  | "truncate";

export interface FaultRule {
  readonly kind: FaultKind;
  /** Milliseconds for `latency`, seconds of `Retry-After` for `429`. */
  readonly value?: number | undefined;
  readonly rate: number;
  readonly method?: string | undefined;
  readonly route?: string | undefined;
}

const KINDS: readonly FaultKind[] = [
  "latency",
  "500",
  "502",
  "503",
  "429",
  "429-bare",
  "403-secondary",
  "reset",
  "timeout",
  "truncate",
];

/** Parses a fault spec; throws an Error naming the bad rule and the valid kinds. */
export function parseFaultSpec(spec: string): FaultRule[] {
  return spec
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map(parseRule);
}

function parseRule(text: string): FaultRule {
  const [head, where] = splitOnce(text, "@");
  const [kindPart, ratePart] = splitOnce(head, ":");
  const [kind, valuePart] = splitOnce(kindPart, "=");
  if (!KINDS.includes(kind as FaultKind)) {
    throw new Error(
      `fault rule "${text}": unknown kind "${kind}"; valid kinds: ${KINDS.join(", ")}`,
    );
  }
  const rate = ratePart === undefined ? 1 : Number(ratePart);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new Error(`fault rule "${text}": rate must be a number from 0 to 1`);
  }
  const value = valuePart === undefined ? undefined : Number(valuePart);
  if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
    throw new Error(`fault rule "${text}": value must be a non-negative number`);
  }
  const route = where?.trim();
  const [method, path] = route?.includes(" ") === true ? splitOnce(route, " ") : [undefined, route];
  return {
    kind: kind as FaultKind,
    value,
    rate,
    method: method?.toUpperCase(),
    route: path?.trim(),
  };
}

function splitOnce(text: string, sep: string): [string, string | undefined] {
  const i = text.indexOf(sep);
  return i < 0 ? [text, undefined] : [text.slice(0, i), text.slice(i + sep.length)];
}

/** Whether a route pattern (`/a/*` one segment, `/a/**` any rest) matches a path. */
export function routeMatches(pattern: string, path: string): boolean {
  const p = pattern.split("/");
  const s = path.split("?")[0]?.split("/") ?? [];
  for (let i = 0; i < p.length; i++) {
    if (p[i] === "**") return true;
    if (i >= s.length) return false;
    if (p[i] !== "*" && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

export interface FaultInjector {
  /** The faults to apply to this request (latency first, then at most one failure). */
  decide(method: string, path: string): FaultRule[];
  setRules(rules: readonly FaultRule[]): void;
  rules(): readonly FaultRule[];
}

export function createFaultInjector(rules: readonly FaultRule[] = [], seed = 1): FaultInjector {
  let current = [...rules];
  const random: Random = createRandom(seed);
  return {
    decide(method, path) {
      const chosen: FaultRule[] = [];
      for (const rule of current) {
        if (rule.method !== undefined && rule.method !== method.toUpperCase()) continue;
        if (rule.route !== undefined && !routeMatches(rule.route, path)) continue;
        if (random() >= rule.rate) continue;
        if (rule.kind === "latency") chosen.unshift(rule);
        else if (!chosen.some((r) => r.kind !== "latency")) chosen.push(rule);
      }
      return chosen;
    },
    setRules(next) {
      current = [...next];
    },
    rules: () => current,
  };
}
