import { execFileSync } from "node:child_process";
import { distIsFresh } from "./dist-fresh.js";
import { seedFromDist } from "./private-build.js";

const BUILT = Symbol.for("tinypm-sync.tests-built");

/**
 * Builds the CLI once per test run, before the first file of a project that spawns it: the cli
 * project spawns `dist/cli/main.js`, roundtrip and reliability a private copy of it
 * (./private-build.ts), made from this build rather than by a second compile. Every such project
 * lists this setup; the first one builds (a build inside a file's `beforeAll` ran against the hook's
 * timeout on a loaded machine).
 *
 * A `dist/` already built from the current sources (CI's `npm ci` runs `prepare`, which builds) is
 * not compiled again: the build is the one step every test waits for (~35 s of CPU, over a minute
 * of wall time on a loaded 2-core machine). `TINYPM_SYNC_REBUILD=1` forces it.
 */
export function setup(): void {
  const run = globalThis as { [BUILT]?: true };
  if (run[BUILT] === true) return;
  if (process.env.TINYPM_SYNC_REBUILD === "1" || !distIsFresh()) {
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
    execFileSync("node", ["scripts/post-build.mjs"], { stdio: "inherit" });
  }
  seedFromDist();
  run[BUILT] = true;
}
