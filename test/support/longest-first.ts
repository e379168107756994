import { statSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that decide the suite's wall time, longest first (per-file times of the whole suite,
 * `npx vitest run --reporter=json`, 2026-11-24). With several workers, a long file started last keeps the run going alone at the end; started first,
 * it runs beside everything else.
 */
export const LONGEST_FILES = [
  // 2026-11-29: bad-input ~145 s in CI, workers-kill ~140 s and crash rounds ~120 s since they
  // were shortened (two rounds at a time, one minute of chaos).
  "test/reliability/bad-input.test.ts",
  "test/reliability/workers-kill.test.ts",
  "test/roundtrip/crash.roundtrip.test.ts",
  // Clean-clone CI, 2026-11-28: mass-delete ~200 s, put-fuzz 148 s, conflict-resolve-twice
  // ~140 s, apply 73 s; none of the first two cli files was listed, so they could start last.
  "test/cli/mass-delete.test.ts",
  "test/reliability/put-fuzz.test.ts",
  "test/cli/conflict-resolve-twice.test.ts",
  "test/reliability/shared-serve.test.ts",
  "test/reliability/confirm-group-crash.test.ts",
  "test/cli/apply.test.ts",
  "test/cli/limit-wait.test.ts",
  "test/cli/plan-description.test.ts",
  "test/cli/shared-token.test.ts",
  "test/cli/output-flags.test.ts",
  "test/roundtrip/identity.roundtrip.test.ts",
  "test/reliability/faults-jira.test.ts",
  "test/roundtrip/identity.property.test.ts",
];

/** Projects by how long their files take, the slowest first. */
const PROJECTS = ["reliability", "roundtrip", "cli", "contract", "unit"];

/**
 * Starts the long files first: those listed, then (where vitest's cache of durations knows every
 * file, as on a second local run) the longest first, else by project and the larger file first.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const path = (f: TestSpecification): string => relative(root, f.moduleId);
    const cache = this.ctx.cache;
    const duration = (f: TestSpecification): number | undefined =>
      cache.getFileTestResults(`${f.project.name}:${path(f)}`)?.duration;
    const listed = (f: TestSpecification): number => {
      const i = LONGEST_FILES.indexOf(path(f));
      return i === -1 ? LONGEST_FILES.length : i;
    };
    const project = (f: TestSpecification): number => {
      const i = PROJECTS.indexOf(f.project.name);
      return i === -1 ? PROJECTS.length : i;
    };
    const known = files.every((f) => duration(f) !== undefined);
    const size = (f: TestSpecification): number => statSync(f.moduleId).size;
    return Promise.resolve(
      [...files].sort(
        (a, b) =>
          listed(a) - listed(b) ||
          (known
            ? (duration(b) ?? 0) - (duration(a) ?? 0)
            : project(a) - project(b) || size(b) - size(a)),
      ),
    );
  }
}
