import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/support/longest-first.js";

// Projects (style.md R14): unit tests beside the code, contract tests against the bundled
// servers, round trips through the real engine, and CLI tests that spawn the built binary.
export default defineConfig({
  test: {
    clearMocks: true,
    restoreMocks: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Most files wait on child processes, servers and timers rather than compute: three workers
    // keep a 2-core machine busy (vitest's default there is one). The long files start first.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/unit/**/*.test.ts"],
          // Pure code, no servers: a worker keeps the modules it imported for the next file
          // instead of importing the source tree again for each (import was ~61 s of ~64 s).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "contract",
          include: ["test/contract/**/*.test.ts", "test/issues/**/*.test.ts"],
          // Each file starts its own servers on port 0 and closes them: a worker keeps the
          // modules it imported for the next file (import was ~770 s of CPU-starved time in a
          // 960 s project run at load 20).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "roundtrip",
          include: ["test/roundtrip/**/*.test.ts"],
          globalSetup: ["test/support/build.global.ts"],
          // Each file starts its own world on port 0 and closes it: a worker keeps the engine,
          // adapters and sandboxes it imported for the next file instead of importing them anew.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "cli",
          include: ["test/cli/**/*.test.ts"],
          globalSetup: ["test/support/build.global.ts"],
          // The CLI runs in child processes; the servers each file starts close with it: a worker
          // keeps the servers' and helpers' modules it imported for the next file.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "reliability",
          include: ["test/reliability/**/*.test.ts"],
          globalSetup: ["test/support/build.global.ts"],
          // Each file starts its own world on port 0 and closes it, and the CLI runs in child
          // processes: a worker keeps the engine, adapters and sandboxes it imported for the next
          // file instead of importing them anew.
          isolate: false,
        },
      },
    ],
  },
});
