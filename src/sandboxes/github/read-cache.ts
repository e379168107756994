import { settling } from "./consistency.js";
import type { Reply, RequestContext, RouteDef } from "./context.js";

/**
 * Answers of GET requests, kept until the next write. A sync that finds nothing changed
 * revalidates every page with `If-None-Match`; this keeps those free 304s cheap, since the
 * page need not be rendered again to compare its ETag.
 */
export interface ReadCache {
  /** The cached answer, or the handler's (cached when cacheable). */
  answer(route: RouteDef, ctx: RequestContext): Reply;
}

const MAX_ENTRIES = 1000;

export function createReadCache(): ReadCache {
  let version = -1;
  let entries = new Map<string, Reply>();
  return {
    answer(route, ctx) {
      // Only answers that depend on nothing but the store and the caller can be kept.
      if (route.resource === "none" || route.conditional === false) return route.handler(ctx);
      // While a write settles (eventual consistency), listings change with time alone.
      if (settling(ctx.store)) return route.handler(ctx);
      if (ctx.store.version !== version) {
        version = ctx.store.version;
        entries = new Map();
      }
      const key = `${ctx.user.login}|${ctx.apiVersion}|${ctx.url.pathname}${ctx.url.search}`;
      const hit = entries.get(key);
      if (hit) return hit;
      const reply = route.handler(ctx);
      if (reply.status === 200 && entries.size < MAX_ENTRIES) entries.set(key, reply);
      return reply;
    },
  };
}
