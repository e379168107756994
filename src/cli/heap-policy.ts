/**
 * How far the JavaScript heap may grow past what a collection leaves live, for the CLI's process.
 *
 * A run allocates fast (HTTP bodies, parsed XML and JSON, snapshots and digests) and keeps far
 * less: V8 then lets the heap grow to up to four times its live set before it collects the old
 * generation again, so peak memory was three to four times what the run needs (410–750 MB at
 * 16,000 items for a live set of 70–150 MB; docs/benchmarks.md). A fixed factor of 1.6 keeps it
 * near the live set for some more collecting (measured in the same place).
 */
export const HEAP_GROWING_PERCENT = 60;

/** V8 flags with which a person or a platform already chose the heap's sizing themselves. */
const OWN_CHOICE =
  /--(heap[-_]growing[-_]percent|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)\b/;

/**
 * The V8 flag the CLI sets at start, or `undefined` when the process was started with its own
 * heap sizing (on the command line or in `NODE_OPTIONS`): that choice stands. A person who wants
 * V8's own growth back starts the process with `--heap-growing-percent=0`.
 */
export function heapFlag(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string | undefined {
  if (execArgv.some((a) => OWN_CHOICE.test(a)) || OWN_CHOICE.test(nodeOptions ?? ""))
    return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}
