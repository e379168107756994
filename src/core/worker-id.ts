import { hostname } from "node:os";

let cached: string | undefined;

/**
 * This process as a worker on a state: `host:pid:start` (the process's start, ISO). The run
 * journal and the workers view name processes by it; a pid alone repeats across hosts,
 * containers and restarts, the three together do not.
 */
export function processWorkerId(): string {
  cached ??= `${hostname()}:${String(process.pid)}:${new Date(Math.round(performance.timeOrigin)).toISOString()}`;
  return cached;
}
