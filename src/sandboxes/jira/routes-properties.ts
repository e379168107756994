import {
  JiraHttpError,
  badRequest,
  created,
  noContent,
  notFound,
  ok,
  type RequestContext,
  type RouteDef,
  issueParam,
} from "./context.js";

const BASE = "/rest/api/3/issue/:issueIdOrKey/properties";

function listProperties(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const keys = [...issue.properties.keys()].map((key) => ({
    self: `${ctx.origin}/rest/api/3/issue/${issue.id}/properties/${encodeURIComponent(key)}`,
    key,
  }));
  return ok({ keys });
}

function getProperty(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const key = ctx.params.propertyKey ?? "";
  if (!issue.properties.has(key)) throw notFound(`The property with key '${key}' does not exist.`);
  return ok({ key, value: issue.properties.get(key) });
}

/**
 * Stores a JSON value (≤ 32,768 characters); 201 when new, 200 when replaced. Entity properties
 * are not fields: setting one does not bump the issue's `updated`.
 */
function putProperty(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const key = ctx.params.propertyKey ?? "";
  if (key.length === 0 || key.length > 255)
    throw badRequest("The property key must have 1 to 255 characters.");
  if (ctx.body === undefined) throw badRequest("The property value must be valid JSON.");
  if (JSON.stringify(ctx.body).length > 32_768) {
    throw new JiraHttpError(400, [
      "The property value is too long: the maximum is 32768 characters.",
    ]);
  }
  const existed = issue.properties.has(key);
  issue.properties.set(key, ctx.body);
  return existed ? ok({}) : created({});
}

function deleteProperty(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const key = ctx.params.propertyKey ?? "";
  if (!issue.properties.delete(key))
    throw notFound(`The property with key '${key}' does not exist.`);
  return noContent();
}

export const PROPERTY_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: BASE, handler: listProperties },
  { method: "GET", pattern: `${BASE}/:propertyKey`, handler: getProperty },
  { method: "PUT", pattern: `${BASE}/:propertyKey`, handler: putProperty },
  { method: "DELETE", pattern: `${BASE}/:propertyKey`, handler: deleteProperty },
];
