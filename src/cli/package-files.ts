import { fileURLToPath } from "node:url";

/**
 * A file or folder of the installed package (`package.json`, `mappings/`), by its path from the
 * package's root. Found from this module's place, `src/cli/` or `dist/cli/`: the build bundles the
 * CLI into `dist/cli/` (scripts/post-build.mjs), so every chunk that inlines this module sits at
 * the same depth, and no other module may resolve package files relative to itself.
 */
export function packageFile(path: string): string {
  return fileURLToPath(new URL(`../../${path}`, import.meta.url));
}
