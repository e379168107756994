import { execFileSync } from "node:child_process";

/** CLI tests spawn `dist/cli/main.js`: build it once from the current sources first. */
export function setup(): void {
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  execFileSync("node", ["scripts/post-build.mjs"], { stdio: "inherit" });
}
