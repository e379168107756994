/**
 * A small method + path router for the bundled servers. Patterns use `:name` for one segment
 * (`/userstory/:id/tasks`). A path that matches under another method yields the allowed methods,
 * so the server can answer 405 with `Allow`.
 */
export type Params = Readonly<Record<string, string>>;

type RouteMatch<H> =
  | { readonly kind: "found"; readonly handler: H; readonly params: Params; readonly route: string }
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly string[] }
  | { readonly kind: "not-found" };

export interface Router<H> {
  add(method: string, pattern: string, handler: H): Router<H>;
  match(method: string, path: string): RouteMatch<H>;
}

interface Route<H> {
  readonly method: string;
  readonly pattern: string;
  readonly segments: readonly string[];
  readonly handler: H;
}

export function createRouter<H>(): Router<H> {
  const routes: Route<H>[] = [];
  const router: Router<H> = {
    add(method, pattern, handler) {
      routes.push({ method: method.toUpperCase(), pattern, segments: split(pattern), handler });
      return router;
    },
    match(method, path) {
      const parts = split(path);
      const allowed: string[] = [];
      for (const route of routes) {
        const params = matchSegments(route.segments, parts);
        if (params === undefined) continue;
        if (route.method === method.toUpperCase()) {
          return { kind: "found", handler: route.handler, params, route: route.pattern };
        }
        if (!allowed.includes(route.method)) allowed.push(route.method);
      }
      return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
    },
  };
  return router;
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

function matchSegments(pattern: readonly string[], parts: readonly string[]): Params | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] ?? "";
    const s = parts[i] ?? "";
    if (p.startsWith(":")) params[p.slice(1)] = decodeURIComponent(s);
    else if (p !== s) return undefined;
  }
  return params;
}
