/**
 * Pure path search through a Jira workflow. Jira only tells us the transitions available from an
 * issue's current status, so the graph is learned as the issue moves: each step is either the
 * first hop of a shortest known path to the wanted status, or (when no known path exists) the first
 * hop towards the nearest status whose transitions are still unknown (breadth-first exploration).
 */

export interface WorkflowEdge {
  readonly id: string;
  readonly name: string;
  /** The status the transition leads to. */
  readonly to: string;
  /** Fields the transition screen requires (e.g. `resolution`). */
  readonly requires?: readonly string[] | undefined;
}

/** Known outgoing transitions per status name (learned from `GET …/transitions`). */
type WorkflowGraph = ReadonlyMap<string, readonly WorkflowEdge[]>;

type NextStep =
  | { readonly kind: "arrived" }
  | { readonly kind: "step"; readonly edge: WorkflowEdge; readonly exploring: boolean }
  | { readonly kind: "unreachable"; readonly reachable: readonly string[] };

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The next transition to take from `current` towards `target`. */
export function nextTransition(opts: {
  readonly graph: WorkflowGraph;
  readonly current: string;
  readonly target: string;
}): NextStep {
  const { graph, current, target } = opts;
  if (same(current, target)) return { kind: "arrived" };
  const firstHop = new Map<string, WorkflowEdge | undefined>([[current, undefined]]);
  const queue = [current];
  let frontier: WorkflowEdge | undefined;
  while (queue.length > 0) {
    const status = queue.shift() ?? "";
    const edges = graph.get(status);
    if (edges === undefined) {
      frontier ??= firstHop.get(status);
      continue;
    }
    for (const edge of edges) {
      if (firstHop.has(edge.to)) continue;
      const hop = firstHop.get(status) ?? edge;
      if (same(edge.to, target)) return { kind: "step", edge: hop, exploring: false };
      firstHop.set(edge.to, hop);
      queue.push(edge.to);
    }
  }
  if (frontier) return { kind: "step", edge: frontier, exploring: true };
  return { kind: "unreachable", reachable: [...firstHop.keys()].filter((s) => s !== current) };
}
