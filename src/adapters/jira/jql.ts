import type { Marker } from "../../core/model.js";

/** A JQL string literal: double-quoted, with `"` and `\` escaped. */
export function jqlString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** Every issue of the project, in a stable order (bounded, as `/search/jql` requires). */
export function projectJql(projectKey: string): string {
  return `project = ${jqlString(projectKey)} ORDER BY key ASC`;
}

/** Issues updated at or after `sinceMs` (an unquoted number is epoch milliseconds in JQL). */
export function updatedSinceJql(projectKey: string, sinceMs: number | undefined): string {
  const since = sinceMs === undefined ? "" : ` AND updated >= ${Math.max(0, Math.floor(sinceMs))}`;
  return `project = ${jqlString(projectKey)}${since} ORDER BY updated ASC, key ASC`;
}

/** Issues carrying the marker in the `propertyKey` entity property. */
export function markerJql(projectKey: string, propertyKey: string, marker: Marker): string {
  const p = (path: string, value: string): string =>
    `issue.property[${propertyKey}].${path} = ${jqlString(value)}`;
  return [
    `project = ${jqlString(projectKey)}`,
    p("originId", marker.originId),
    p("originKind", marker.originKind),
    p("origin", marker.origin),
    p("job", marker.job),
  ].join(" AND ");
}

/** Issues by key (`key in (…)`), at most 100 per query. */
export function keysJql(keys: readonly string[]): string {
  return `key in (${keys.map(jqlString).join(", ")}) ORDER BY key ASC`;
}

/** Issues created at or after `sinceMs` (epoch ms), for the marker scan. */
export function createdSinceJql(projectKey: string, sinceMs: number): string {
  return `project = ${jqlString(projectKey)} AND created >= ${Math.max(0, Math.floor(sinceMs))} ORDER BY created ASC, key ASC`;
}

/** A story's sub-tasks. */
export function childrenJql(projectKey: string, parentKey: string): string {
  return `project = ${jqlString(projectKey)} AND parent = ${jqlString(parentKey)} ORDER BY key ASC`;
}
