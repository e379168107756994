/**
 * The sprint custom field as Jira Server/DC reads it back: each sprint the Java `toString()` of
 * GreenHopper's Sprint object, not JSON —
 * `com.atlassian.greenhopper.service.sprint.Sprint@1f2e3d[id=1,rapidViewId=1,state=ACTIVE,…]`.
 * The goal is written as it is, commas and brackets included, which is what makes these strings
 * hard to parse.
 */
import type { SprintRecord } from "./store.js";

function javaTime(ms: number | undefined): string {
  return ms === undefined ? "<null>" : new Date(ms).toISOString();
}

/** A stable identity hash (`@…`) per sprint, as the JVM prints one. */
function identityHash(id: number): string {
  return ((id * 2_654_435_761) >>> 0).toString(16);
}

export function sprintToString(s: SprintRecord): string {
  const parts: [string, string][] = [
    ["id", String(s.id)],
    ["rapidViewId", String(s.boardId)],
    ["state", s.state.toUpperCase()],
    ["name", s.name],
    ["startDate", javaTime(s.startDate)],
    ["endDate", javaTime(s.endDate)],
    ["completeDate", javaTime(s.completeDate)],
    ["activatedDate", javaTime(s.startDate)],
    ["sequence", String(s.id)],
    ["goal", s.goal === "" ? "<null>" : s.goal],
    ["synced", "false"],
    ["autoStartStop", "false"],
    ["incompleteIssuesDestinationId", "<null>"],
  ];
  const fields = parts.map(([k, v]) => `${k}=${v}`).join(",");
  return `com.atlassian.greenhopper.service.sprint.Sprint@${identityHash(s.id)}[${fields}]`;
}
