import { createRouter, type Router } from "../../server-kit/router.js";
import type { RouteDef } from "./context.js";
import { dataCenterRoutes } from "./dc-routes.js";
import { restV2Routes } from "./rest-v2.js";
import { AGILE_ROUTES } from "./routes-agile.js";
import { CHANGELOG_ROUTES } from "./routes-changelog.js";
import { COMMENT_ROUTES } from "./routes-comments.js";
import { COMPAT_ROUTES } from "./routes-compat.js";
import { ISSUE_ROUTES } from "./routes-issues.js";
import { LINK_ROUTES } from "./routes-links.js";
import { META_ROUTES } from "./routes-meta.js";
import { PROPERTY_ROUTES } from "./routes-properties.js";
import { SEARCH_ROUTES } from "./routes-search.js";
import { TRANSITION_ROUTES } from "./routes-transitions.js";

/**
 * Every route of the Jira sandbox: on Cloud platform REST v3 with its v2/latest twins, and Agile
 * 1.0; on Data Center REST v2/latest only (dc-routes.ts) and Agile 1.0.
 */
export function createJiraRouter(deployment: "cloud" | "datacenter" = "cloud"): Router<RouteDef> {
  const router = createRouter<RouteDef>();
  const all = [
    ...COMPAT_ROUTES,
    ...SEARCH_ROUTES,
    ...META_ROUTES,
    ...ISSUE_ROUTES,
    ...TRANSITION_ROUTES,
    ...CHANGELOG_ROUTES,
    ...COMMENT_ROUTES,
    ...PROPERTY_ROUTES,
    ...LINK_ROUTES,
    ...AGILE_ROUTES,
  ];
  const routes =
    deployment === "datacenter" ? dataCenterRoutes(all) : [...all, ...restV2Routes(all)];
  for (const route of routes) router.add(route.method, route.pattern, route);
  return router;
}
