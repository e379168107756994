// Bundles the CLI that tsc emitted into a few files, then makes its entry executable (npm links bin
// files, but a plain `node dist/cli/main.js` or `./dist/cli/main.js` should work straight from a
// clone too). `node scripts/post-build.mjs [DIST]` works on another build's dist (the tests'
// private copy, test/support/private-build.ts).
//
// Why a bundle: a run of the CLI loaded ~550 modules (its own ~290 and its packages' ~250), and
// Node's ESM loader spends about a millisecond of CPU on each; that was most of the ~0.9 s of CPU
// a short run took (`node --cpu-prof`), paid again by every process: each run, and each spawn in
// the tests. Bundled, a short run takes ~0.5 s. The library entry (`dist/index.js` and the
// modules it imports) stays as tsc emitted it; only `dist/cli/main.js` is replaced.
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const DIST = resolve(process.argv[2] ?? fileURLToPath(new URL("../dist", import.meta.url)));
const CLI = join(DIST, "cli");
const ENTRY = join(CLI, "main.js");
const MARK = "// tinypm-sync CLI bundle (scripts/post-build.mjs)";
/** Chunks of the bundle (`main-NAME-HASH.js`) beside the entry: old ones go on each build. */
const CHUNK = /^main-.+-[A-Z0-9]{8}\.js$/;

if (existsSync(ENTRY) && !readFileSync(ENTRY, "utf8").slice(0, 200).includes(MARK)) {
  for (const name of readdirSync(CLI)) if (CHUNK.test(name)) rmSync(join(CLI, name));
  await build({
    entryPoints: [ENTRY],
    outdir: CLI,
    allowOverwrite: true,
    bundle: true,
    // Commands, adapters and servers still load on demand: one chunk per dynamic import. The
    // chunks sit beside the entry, in `dist/cli/`, so the package's files are found from any of
    // them as from the modules tsc emitted there (src/cli/package-files.ts).
    splitting: true,
    chunkNames: "main-[name]-[hash]",
    format: "esm",
    platform: "node",
    target: "node20",
    // A native addon, an optional native driver pg looks for, and pino, which finds its worker
    // files from its own folder (`__dirname`): loaded from node_modules as before.
    external: ["better-sqlite3", "pg-native", "pino"],
    // The CommonJS packages bundled into ESM require Node's modules at run time.
    banner: {
      js: `${MARK}\nimport { createRequire as __bundleRequire } from "node:module";\nconst require = __bundleRequire(import.meta.url);`,
    },
    logLevel: "warning",
  });
  // tsc's source map of the entry does not describe the bundle.
  rmSync(`${ENTRY}.map`, { force: true });
}
if (existsSync(ENTRY)) chmodSync(ENTRY, 0o755);
