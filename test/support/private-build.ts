import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * A private build of the CLI: `dist/` is rebuilt by other test runs at any moment, and a
 * half-written `dist/` makes a child process fail for reasons that are not the test's. One per
 * checkout: two working copies of the project never run each other's build.
 */
const CHECKOUT = createHash("sha256").update(ROOT).digest("hex").slice(0, 8);
const BUILD = join(
  tmpdir(),
  `tinypm-sync-reliability-build-${process.getuid?.() ?? 0}-${CHECKOUT}`,
);
export const CLI = join(BUILD, "dist/cli/main.js");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the private copy when a source is newer than it (one build at a time, by flock). */
export function ensureBuilt(): void {
  privateBuild(
    `npx tsc -p tsconfig.build.json --outDir "${BUILD}/dist.new" --declaration false --sourceMap false && node scripts/post-build.mjs "${BUILD}/dist.new"`,
  );
}

/**
 * Makes the private copy from `dist/`, just built from the current sources by the test run's
 * global setup, instead of compiling them a second time.
 */
export function seedFromDist(): void {
  privateBuild(`cp -R "${ROOT}dist" "${BUILD}/dist.new"`);
}

function privateBuild(emit: string): void {
  const stamp = join(BUILD, "built.stamp");
  const builtAt = (): number => (existsSync(stamp) ? statSync(stamp).mtimeMs : 0);
  if (builtAt() > newestSource(join(ROOT, "src"))) return;
  mkdirSync(BUILD, { recursive: true });
  const fresh = `[ -f "${stamp}" ] && [ -z "$(find src -name '*.ts' -newer "${stamp}" | head -1)" ]`;
  // The packages first: the CLI's bundle is made from them (scripts/post-build.mjs).
  const build = [
    `ln -sfn "${ROOT}node_modules" "${BUILD}/node_modules"`,
    `ln -sfn "${ROOT}mappings" "${BUILD}/mappings"`,
    `rm -rf "${BUILD}/dist.new"`,
    emit,
    `rm -rf "${BUILD}/dist"`,
    `mv "${BUILD}/dist.new" "${BUILD}/dist"`,
    `cp package.json "${BUILD}/package.json"`,
    `touch "${stamp}"`,
  ].join(" && ");
  const script = `${fresh} || (${build})`;
  execFileSync(
    "flock",
    [join(tmpdir(), "tinypm-sync-reliability-build.lock"), "sh", "-c", script],
    {
      cwd: ROOT,
      stdio: "ignore",
    },
  );
}
