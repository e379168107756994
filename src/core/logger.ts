/**
 * What every layer below the CLI logs through: the adapters' request lines and the registry's
 * per-system children. pino's `Logger` (src/log/logger.ts) fits it; a test passes a collector.
 */
export interface Logger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  /** A logger whose lines carry `bindings` too (e.g. `{ system: "jira" }`). */
  child?(bindings: Record<string, unknown>): Logger;
}
