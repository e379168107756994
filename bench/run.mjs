// Runs every bench/*.bench.mjs (against the built dist/) and prints their figures.
// Usage: npm run bench [-- <name-filter>]. Results are also written to bench/results/latest.json.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";

const filter = process.argv[2];
const dir = new URL("./", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => filter === undefined || f.includes(filter))
  .sort();

const results = [];
for (const file of files) {
  const started = Date.now();
  console.log(`\n== ${file}`);
  const mod = await import(new URL(file, dir).href);
  const result = await mod.run();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  for (const [label, value] of Object.entries(result.figures)) console.log(`  ${label}: ${value}`);
  for (const [label, target] of Object.entries(result.targets ?? {}))
    console.log(`  target ${label}: ${target}`);
  console.log(`  (${seconds} s)`);
  results.push({ file, ...result });
}
mkdirSync(new URL("./results/", dir), { recursive: true });
writeFileSync(new URL("./results/latest.json", dir), `${JSON.stringify(results, null, 2)}\n`);
