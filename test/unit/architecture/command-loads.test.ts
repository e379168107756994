import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph, type ImportGraph } from "./import-graph.js";

const SRC = fileURLToPath(new URL("../../../src", import.meta.url));

/** Every module `from` loads at run time through static imports (type-only ones are erased). */
function loads(graph: ImportGraph, from: string): Set<string> {
  const seen = new Set<string>([from]);
  const todo = [from];
  for (let m = todo.pop(); m !== undefined; m = todo.pop()) {
    for (const e of graph.get(m) ?? []) {
      if (e.typeOnly || seen.has(e.to)) continue;
      seen.add(e.to);
      todo.push(e.to);
    }
  }
  return seen;
}

const ADAPTERS = ["adapters/registry.ts", "adapters/github/", "adapters/jira/", "adapters/tinypm/"];
const adaptersIn = (modules: Set<string>): string[] =>
  [...modules].filter((m) => ADAPTERS.some((a) => m.startsWith(a))).sort();

/**
 * Each process of the CLI loads what its command imports, and the adapters (with got, Octokit and
 * their schemas) are the bulk of it: a command that only reads the state does not load them
 * (`status` then starts in ~0.19 s of CPU instead of ~0.3 s).
 */
describe("what a command loads", () => {
  const graph = importGraph(SRC);

  it("a job run loads the adapters (the walk follows the imports)", () => {
    expect(adaptersIn(loads(graph, "cli/commands/sync.ts"))).toContain("adapters/github/index.ts");
  });

  it.each(["cli/commands/status.ts", "cli/commands/conflicts.ts"])(
    "%s loads no adapter",
    (command) => {
      expect(graph.has(command)).toBe(true);
      expect(adaptersIn(loads(graph, command))).toEqual([]);
    },
  );
});
