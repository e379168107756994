import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The files whose change changes every emitted file: compiler settings, package, bundling. */
const BUILD_INPUTS = [
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "scripts/post-build.mjs",
];

/** Every source `tsconfig.build.json` compiles: `src/**\/*.ts`, tests and declarations aside. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (
      entry.name.endsWith(".ts") &&
      !entry.name.endsWith(".test.ts") &&
      !entry.name.endsWith(".d.ts")
    )
      out.push(path);
  }
  return out;
}

/**
 * Whether `dist/` holds a build of the current sources, as make decides it: every source has its
 * emitted `.js` no older than itself, and no build input is newer than the oldest of them. A
 * source added, edited or checked out since the last build (git writes the files it changes with
 * the current time) means a build is due.
 */
export function distIsFresh(root: string = ROOT): boolean {
  const src = join(root, "src");
  const dist = join(root, "dist");
  if (!existsSync(src) || !existsSync(dist)) return false;
  let oldestOutput = Infinity;
  for (const source of sources(src)) {
    const output = join(dist, relative(src, source)).replace(/\.ts$/, ".js");
    if (!existsSync(output)) return false;
    const emitted = statSync(output).mtimeMs;
    if (emitted < statSync(source).mtimeMs) return false;
    oldestOutput = Math.min(oldestOutput, emitted);
  }
  return BUILD_INPUTS.every((f) => {
    const path = join(root, f);
    return !existsSync(path) || statSync(path).mtimeMs <= oldestOutput;
  });
}
