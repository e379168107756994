// Makes the CLI entry executable after tsc emits it (npm links bin files, but a plain
// `node dist/cli/main.js` or `./dist/cli/main.js` should work straight from a clone too).
import { chmodSync, existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (existsSync(entry)) chmodSync(entry, 0o755);
