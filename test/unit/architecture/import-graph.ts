import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** One relative import of a module: where it points and whether it survives compilation. */
export interface ImportEdge {
  readonly to: string;
  /** `import type`, or an import whose every name is `type`: erased, no load order at run time. */
  readonly typeOnly: boolean;
}

/** Module path (relative to the root, `/`-separated) → its relative imports of other modules. */
export type ImportGraph = ReadonlyMap<string, readonly ImportEdge[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // `import "./x.js"` runs the module
  if (clause.phaseModifier === ts.SyntaxKind.TypeKeyword) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}

function edgesOf(file: string, root: string): ImportEdge[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const edges: ImportEdge[] = [];
  for (const node of source.statements) {
    let specifier: ts.Expression | undefined;
    let typeOnly = false;
    if (ts.isImportDeclaration(node)) {
      specifier = node.moduleSpecifier;
      typeOnly = isTypeOnlyImport(node);
    } else if (ts.isExportDeclaration(node)) {
      specifier = node.moduleSpecifier;
      typeOnly = node.isTypeOnly;
    }
    if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
    if (!specifier.text.startsWith(".")) continue; // packages and node: builtins
    const target = resolve(dirname(file), specifier.text.replace(/\.js$/, ".ts"));
    edges.push({ to: relative(root, target).split("\\").join("/"), typeOnly });
  }
  return edges;
}

/** The static import graph of every non-test `.ts` module under `root`. */
export function importGraph(root: string): ImportGraph {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of sourceFiles(root)) {
    graph.set(relative(root, file).split("\\").join("/"), edgesOf(file, root));
  }
  return graph;
}

/**
 * The import cycles of a graph: its strongly connected components of more than one module (or a
 * module importing itself), each sorted, following only run-time imports unless `types` is set.
 * Dynamic `import()` is not followed (it is how a deliberate late dependency is written).
 */
export function importCycles(graph: ImportGraph, o: { types: boolean }): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const next = (v: string): string[] =>
    (graph.get(v) ?? [])
      .filter((e) => (o.types || !e.typeOnly) && graph.has(e.to))
      .map((e) => e.to);

  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next(v).includes(v)) cycles.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}
