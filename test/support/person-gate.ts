import type { GateRequest, RequestGate } from "../../src/core/request-gate.js";

/** When a person acts, relative to one write request of the run. */
export interface PersonMoment {
  /** Which write: its gate name (`PUT /userstory/{id} 7`); any write when absent. */
  write?: string | undefined;
  /** Made when that write is let through the gate, before it is sent (then cleared). */
  beforeWrite?: (() => void) | undefined;
  /** Made once that write was answered, before anything else is sent (then cleared). */
  afterWrite?: (() => void) | undefined;
}

/**
 * A request gate that sends every request once, as `ungated` does, with a person acting at
 * `moment`. In a real run a write waits in its token's gate for its turn (requests in flight,
 * write windows, the shared budget), so "when the write is let through" is the last moment a
 * person's save can land before the write goes out; "once it was answered" is the first moment
 * after it.
 */
export function gateWithPerson(moment: PersonMoment): RequestGate {
  const matches = (req: GateRequest<unknown>): boolean =>
    req.kind === "write" && (moment.write === undefined || moment.write === req.name);
  return {
    async request<T>(req: GateRequest<T>): Promise<T> {
      const mine = matches(req);
      if (mine) {
        const edit = moment.beforeWrite;
        moment.beforeWrite = undefined;
        edit?.();
      }
      const answer = await req.send(new AbortController().signal);
      if (mine) {
        const edit = moment.afterWrite;
        moment.afterWrite = undefined;
        edit?.();
      }
      return answer;
    },
  };
}
