import type { SystemName } from "../../src/core/model.js";
import { createGate, type RunGate } from "../../src/gate/gate.js";
import { DEFAULT_RETRY_POLICY } from "../../src/gate/retry.js";

/**
 * A request gate that sends each request once, with no pacing, as an adapter without a gate
 * would, and counts it: for tests that read an adapter's calls (the gate's counters are the one
 * count of API use).
 */
export function countingGate(system: SystemName): RunGate {
  return createGate({
    system,
    limits: { concurrency: 64 },
    policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 },
  }).forRun({ maxWaitMs: Infinity });
}
