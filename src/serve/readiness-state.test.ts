import { describe, expect, it } from "vitest";
import { StateError } from "../core/errors.js";
import { createLogger } from "../log/logger.js";
import type { StateStore } from "../state/store.js";
import { createService } from "./service.js";

const until = async (what: string, ok: () => boolean): Promise<void> => {
  const end = Date.now() + 30_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("readiness follows the state", () => {
  it("is not ready while the state does not answer, names it, and is ready again once it does", async () => {
    let down: Error | undefined;
    const service = createService({
      jobs: [],
      logger: createLogger({ level: "silent", stream: { write: () => true } }),
      stateCheckMs: 10,
      execute: () => Promise.reject(new Error("no job runs here")),
      probe: () => Promise.resolve([]),
      readState: <T>(fn: (state: StateStore) => Promise<T>): Promise<T> =>
        down === undefined ? fn({} as StateStore) : Promise.reject(down),
      writeState: () => Promise.reject(new Error("not used")),
    });
    expect(service.readiness.current()).toEqual({
      ready: false,
      reasons: ["the state has not been opened yet"],
    });
    service.start();
    try {
      await until("ready", () => service.readiness.current().ready);
      down = new StateError(
        "state_unavailable",
        "PostgreSQL state postgres://sync:***@db/x is unreachable (connect ECONNREFUSED).",
      );
      await until("not ready", () => !service.readiness.current().ready);
      expect(service.readiness.current().reasons).toEqual([
        "the state is not available: PostgreSQL state postgres://sync:***@db/x is unreachable (connect ECONNREFUSED).",
      ]);
      down = undefined;
      await until("ready again", () => service.readiness.current().ready);
      expect(service.readiness.current().reasons).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
