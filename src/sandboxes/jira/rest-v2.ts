import { adfText, type AdfDocument } from "./adf.js";
import { isRecord, type Reply, type RequestContext, type RouteDef } from "./context.js";

/**
 * Jira Cloud's REST v2 (and `latest`, which is v2): the same resources as v3 over the same
 * store, with plain-text (wiki) strings where v3 has ADF documents — issue `description` and
 * `environment`, comment `body`, worklog `comment`, link `comment.body`. Requests are turned
 * into v3 bodies (each line a paragraph) and answers back into text; `self` links name v2.
 */

const V3 = "/rest/api/3/";
const TEXT_FIELDS = new Set(["description", "environment", "body", "comment"]);

/** The v2 and `latest` twins of every v3 route (the Agile API has no versions to twin). */
export function restV2Routes(routes: readonly RouteDef[]): RouteDef[] {
  const taken = new Set(routes.map((r) => `${r.method} ${r.pattern}`));
  const twins: RouteDef[] = [];
  for (const route of routes) {
    if (!route.pattern.startsWith(V3)) continue;
    for (const prefix of ["/rest/api/2/", "/rest/api/latest/"]) {
      const pattern = prefix + route.pattern.slice(V3.length);
      if (taken.has(`${route.method} ${pattern}`)) continue;
      twins.push({ ...route, pattern, handler: v2Handler(route, prefix) });
    }
  }
  return twins;
}

function v2Handler(route: RouteDef, prefix: string): RouteDef["handler"] {
  return (ctx: RequestContext): Reply => {
    const reply = route.handler({ ...ctx, body: v2Request(ctx.body) });
    if (reply.body === undefined) return reply;
    return { ...reply, body: v2Response(reply.body, ctx.origin, prefix) };
  };
}

/** A v2 request body as the v3 handlers read it: each text string becomes a document. */
export function v2Request(body: unknown): unknown {
  return toV3(body, undefined);
}

/** A v3 answer as v2 gives it: documents back to their text, `self` links under `prefix`. */
export function v2Response(body: unknown, origin: string, prefix: string): unknown {
  return toV2(body, origin + V3, origin + prefix);
}

/** Plain text → a v3 document: one paragraph per line. */
function textToAdf(text: string): AdfDocument {
  return {
    type: "doc",
    version: 1,
    content: text.split("\n").map((line) => ({
      type: "paragraph",
      content: line === "" ? [] : [{ type: "text", text: line }],
    })),
  };
}

function toV3(value: unknown, key: string | undefined): unknown {
  if (typeof value === "string" && key !== undefined && TEXT_FIELDS.has(key)) {
    return textToAdf(value);
  }
  if (Array.isArray(value)) {
    // `update.description: [{set: "text"}]` keeps the field's name for its operations.
    return value.map((v) => (isRecord(v) && key !== undefined ? opsToV3(v, key) : toV3(v, key)));
  }
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toV3(v, k)]));
}

function opsToV3(op: Record<string, unknown>, field: string): unknown {
  return Object.fromEntries(
    Object.entries(op).map(([k, v]) => [
      k,
      (k === "set" || k === "add") && typeof v === "string" ? toV3(v, field) : toV3(v, k),
    ]),
  );
}

function isDoc(value: Record<string, unknown>): boolean {
  return value.type === "doc" && value.version === 1 && Array.isArray(value.content);
}

function toV2(value: unknown, v3: string, v2: string): unknown {
  if (typeof value === "string") return value.startsWith(v3) ? v2 + value.slice(v3.length) : value;
  if (Array.isArray(value)) return value.map((v) => toV2(v, v3, v2));
  if (!isRecord(value)) return value;
  if (isDoc(value)) return adfText(value);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toV2(v, v3, v2)]));
}
