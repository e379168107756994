import {
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";

/**
 * GitHub's query cost: the requests needed for every connection, assuming each `first`/`last` is
 * filled (1 for a top-level connection, N for one nested under N parents), divided by 100 and
 * rounded, at least 1. `items(first:100){ fieldValues(first:50) }` costs 1 + 100 → 1 point.
 */
export function queryCost(
  doc: DocumentNode,
  op: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const valueOf = (v: ValueNode): unknown => {
    if (v.kind === Kind.INT) return Number(v.value);
    if (v.kind === Kind.VARIABLE) return variables[v.name.value];
    return undefined;
  };
  const walk = (set: SelectionSetNode, parents: number, seen: ReadonlySet<string>): number => {
    let requests = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (f !== undefined && !seen.has(f.name.value))
          requests += walk(f.selectionSet, parents, new Set([...seen, f.name.value]));
        continue;
      }
      if (s.kind === Kind.INLINE_FRAGMENT) {
        requests += walk(s.selectionSet, parents, seen);
        continue;
      }
      if (s.selectionSet === undefined) continue;
      const bound = (s.arguments ?? [])
        .filter((a) => a.name.value === "first" || a.name.value === "last")
        .map((a) => valueOf(a.value))
        .find((v): v is number => typeof v === "number");
      if (bound === undefined) requests += walk(s.selectionSet, parents, seen);
      else requests += parents + walk(s.selectionSet, parents * bound, seen);
    }
    return requests;
  };
  return Math.max(1, Math.round(walk(op.selectionSet, 1, new Set()) / 100));
}
