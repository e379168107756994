import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { distIsFresh } from "../../support/dist-fresh.js";

/** The test run's build is skipped only for a dist/ built from the current sources. */
describe("distIsFresh", () => {
  let root = "";
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** Writes `path` under the root with its mtime `at` seconds (epoch). */
  function file(path: string, at: number): void {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, "");
    utimesSync(full, at, at);
  }

  function built(): void {
    root = mkdtempSync(join(tmpdir(), "tps-dist-fresh-"));
    file("package.json", 100);
    file("tsconfig.json", 100);
    file("src/cli/main.ts", 200);
    file("src/core/model.ts", 200);
    file("src/core/model.test.ts", 900);
    file("dist/cli/main.js", 300);
    file("dist/core/model.js", 300);
  }

  it("holds when every source's output is no older than it (tests are not compiled)", () => {
    built();
    expect(distIsFresh(root)).toBe(true);
  });

  it("fails for a source edited after the build", () => {
    built();
    file("src/core/model.ts", 400);
    expect(distIsFresh(root)).toBe(false);
  });

  it("fails for a source added since the build", () => {
    built();
    file("src/core/new-thing.ts", 250);
    expect(distIsFresh(root)).toBe(false);
  });

  it("fails for compiler settings changed since the build", () => {
    built();
    file("tsconfig.json", 400);
    expect(distIsFresh(root)).toBe(false);
  });

  it("fails without a dist/", () => {
    built();
    rmSync(join(root, "dist"), { recursive: true });
    expect(distIsFresh(root)).toBe(false);
  });
});
