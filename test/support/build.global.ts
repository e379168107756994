import { execFileSync } from "node:child_process";
import { seedFromDist } from "./private-build.js";

const BUILT = Symbol.for("tinypm-sync.tests-built");

/**
 * Builds the CLI once per test run, before the first file of a project that spawns it: the cli
 * project spawns `dist/cli/main.js`, roundtrip and reliability a private copy of it
 * (./private-build.ts), made from this build rather than by a second compile. Every such project
 * lists this setup; the first one builds (a build inside a file's `beforeAll` ran against the hook's
 * timeout on a loaded machine).
 */
export function setup(): void {
  const run = globalThis as { [BUILT]?: true };
  if (run[BUILT] === true) return;
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  execFileSync("node", ["scripts/post-build.mjs"], { stdio: "inherit" });
  seedFromDist();
  run[BUILT] = true;
}
