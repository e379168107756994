import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What the reliability suite counts; each test file adds its share. */
export interface Figures {
  faultsInjected: number;
  faultRuns: number;
  crashPoints: number;
  badInputs: number;
  putEdits: number;
  secretScans: number;
  itemsLost: number;
  duplicates: number;
}

const EMPTY: Figures = {
  faultsInjected: 0,
  faultRuns: 0,
  crashPoints: 0,
  badInputs: 0,
  putEdits: 0,
  secretScans: 0,
  itemsLost: 0,
  duplicates: 0,
};

/** One directory per user; every test file writes its own JSON file there. */
export const FIGURES_DIR = join(tmpdir(), "tinypm-sync-reliability-figures");

/** A counter for one test file, saved (and the suite-wide totals printed) by `save()`. */
export function createFigures(file: string): { add(f: Partial<Figures>): void; save(): void } {
  const mine: Figures = { ...EMPTY };
  return {
    add(f) {
      for (const [k, v] of Object.entries(f) as [keyof Figures, number][]) mine[k] += v;
    },
    save() {
      mkdirSync(FIGURES_DIR, { recursive: true });
      writeFileSync(join(FIGURES_DIR, `${file}.json`), JSON.stringify(mine));
      process.stdout.write(`${summaryText(file, mine, totals())}\n`);
    },
  };
}

/** The sum over every test file's last saved figures. */
export function totals(): Figures {
  const sum: Figures = { ...EMPTY };
  for (const name of readdirSync(FIGURES_DIR).filter((n) => n.endsWith(".json"))) {
    const f = JSON.parse(readFileSync(join(FIGURES_DIR, name), "utf8")) as Partial<Figures>;
    for (const k of Object.keys(EMPTY) as (keyof Figures)[]) sum[k] += f[k] ?? 0;
  }
  return sum;
}

function summaryText(file: string, mine: Figures, all: Figures): string {
  const line = (f: Figures): string =>
    `faults injected and survived ${f.faultsInjected} (in ${f.faultRuns} runs), crash points ` +
    `${f.crashPoints}, bad inputs ${f.badInputs}, PUT edits ${f.putEdits}, secret scans ` +
    `${f.secretScans}, items lost ${f.itemsLost}, duplicates ${f.duplicates}`;
  return `[reliability] ${file}: ${line(mine)}\n[reliability] all files so far: ${line(all)}`;
}
