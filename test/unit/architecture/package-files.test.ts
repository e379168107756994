import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../../src", import.meta.url));

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return modules(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * The build bundles the CLI into chunks in `dist/cli/` (scripts/post-build.mjs): a module's code
 * then runs from another folder than its own, and a path found from its `import.meta.url` points
 * elsewhere. The package's files are found by src/cli/package-files.ts alone, which sits in
 * `dist/cli/` bundled or not.
 */
describe("package files", () => {
  it("are found from import.meta.url by src/cli/package-files.ts alone", () => {
    const users = modules(SRC)
      .filter((f) => readFileSync(f, "utf8").includes("import.meta"))
      .map((f) => relative(SRC, f).split("\\").join("/"));
    expect(users).toEqual(["cli/package-files.ts"]);
  });
});
