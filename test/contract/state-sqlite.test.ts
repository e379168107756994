import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe } from "vitest";
import { stateContract } from "./support/state-suite.js";

// The shared state contract on the SQLite backend (a new file per test).
const dir = mkdtempSync(join(tmpdir(), "state-contract-"));
let n = 0;
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the SQLite state backend", () => {
  stateContract(() => ({
    name: "sqlite",
    fresh: () => Promise.resolve({ backend: "sqlite", path: join(dir, `state-${(n += 1)}.db`) }),
  }));
});
