// Runs every bench/*.bench.mjs (against the built dist/) and prints their figures.
// Usage: npm run bench [-- <name-filter>]. Results are also written to bench/results/latest.json,
// with the date, Node version, cores and load average. A benchmark that throws is reported (and
// makes the exit code 1) without stopping the others.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

const filter = process.argv[2];
const dir = new URL("./", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => filter === undefined || f.includes(filter))
  .sort();

const load = () => loadavg().map((l) => Number(l.toFixed(1)));
const machine = {
  date: new Date().toISOString(),
  node: process.version,
  cores: availableParallelism(),
  loadBefore: load(),
};
console.log(
  `node ${machine.node}, ${machine.cores} cores, load average ${machine.loadBefore.join(" ")}`,
);
const runStarted = Date.now();
const results = [];
for (const file of files) {
  const started = Date.now();
  console.log(`\n== ${file}`);
  try {
    const mod = await import(new URL(file, dir).href);
    const result = await mod.run();
    const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
    for (const [label, value] of Object.entries(result.figures))
      console.log(`  ${label}: ${value}`);
    for (const [label, target] of Object.entries(result.targets ?? {}))
      console.log(`  target ${label}: ${target}`);
    console.log(`  (${seconds} s)`);
    results.push({ file, seconds, ...result });
  } catch (error) {
    process.exitCode = 1;
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.log(`  FAILED: ${message}`);
    results.push({ file, error: message });
  }
}
const totalSeconds = Number(((Date.now() - runStarted) / 1000).toFixed(1));
console.log(`\nall benchmarks: ${totalSeconds} s, load average now ${load().join(" ")}`);
mkdirSync(new URL("./results/", dir), { recursive: true });
writeFileSync(
  new URL("./results/latest.json", dir),
  `${JSON.stringify({ ...machine, loadAfter: load(), totalSeconds, results }, null, 2)}\n`,
);
