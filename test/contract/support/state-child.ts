import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Transpiles `src/state` and `src/core` to plain ESM for child processes (Node 20 runs no
 * TypeScript). The output sits under node_modules/.cache so `better-sqlite3` resolves.
 * @returns the file URL of the transpiled `state/sqlite-store.js`
 */
export function buildStateForChildren(): {
  storeUrl: string;
  stateUrl: string;
  cleanup: () => void;
} {
  const out = join(root, "node_modules", ".cache", `tinypm-sync-state-test-${process.pid}`);
  const transpile = (folder: string): void => {
    mkdirSync(join(out, folder), { recursive: true });
    for (const entry of readdirSync(join(root, "src", folder), { withFileTypes: true })) {
      const file = entry.name;
      if (entry.isDirectory()) {
        transpile(join(folder, file));
        continue;
      }
      if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
      const source = readFileSync(join(root, "src", folder, file), "utf8");
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(out, folder, file.replace(/\.ts$/, ".js")), outputText);
    }
  };
  for (const folder of ["state", "core"]) transpile(folder);
  return {
    storeUrl: new URL(`file://${join(out, "state", "sqlite-store.js")}`).href,
    stateUrl: new URL(`file://${join(out, "state", "open-state.js")}`).href,
    cleanup: () => {
      rmSync(out, { recursive: true, force: true });
    },
  };
}

/** A child process running `code` (an ES module body with `openSqliteStore` imported). */
export interface StateChild {
  readonly process: ChildProcess;
  /** The next stdout line. */
  line(): Promise<string>;
  /** Resolves with the exit code (or signal) once the child is gone and reaped. */
  exited: Promise<number | NodeJS.Signals>;
}

/** Starts `node --input-type=module -e <code>` with `openSqliteStore` in scope. */
export function spawnStateChild(storeUrl: string, code: string): StateChild {
  return spawnChild(`import { openSqliteStore } from ${JSON.stringify(storeUrl)};\n${code}`);
}

/** Starts a child with `openState` (either backend, open-state.ts) in scope. */
export function spawnBackendChild(stateUrl: string, code: string): StateChild {
  return spawnChild(`import { openState } from ${JSON.stringify(stateUrl)};\n${code}`);
}

function spawnChild(body: string): StateChild {
  const child = spawn(process.execPath, ["--input-type=module", "-e", body], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const exited = new Promise<number | NodeJS.Signals>((done) => {
    child.on("exit", (code, signal) => {
      done(signal ?? code ?? -1);
    });
  });
  return {
    process: child,
    line: () => {
      const next = lines.shift();
      return next === undefined ? new Promise((done) => waiters.push(done)) : Promise.resolve(next);
    },
    exited,
  };
}
