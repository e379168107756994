import { badRequest } from "./api-error.js";
import { LEGACY_STATUSES, type LegacyStatus, type ProjectRecord } from "./model.js";
import {
  expectRoot,
  readDecimal,
  readInt,
  readList,
  readLongDate,
  readRequiredText,
  readText,
} from "./read-input.js";
import type { ReferenceStore, TaskInput } from "./store.js";
import { readUser } from "./story-input.js";
import { childOf, type XmlElement } from "./xml-read.js";

/**
 * Reads a `<task>` request body (POST or PUT) into a complete task (full replacement). The status
 * is `<status><id>N</id></status>`, `<taskStatusId>N</taskStatusId>`, or a legacy enum name; when
 * absent it is the project's first ("not started") status.
 */
export function readTaskInput(
  el: XmlElement,
  opts: { store: ReferenceStore; project: ProjectRecord; storyId: number },
): TaskInput {
  expectRoot(el, "task");
  const users = (readList(el, "assignedUsers", "user") ?? []).map((u) => {
    const id = readUser({ name: "assignedUsers", children: [u], text: "" }, "user", opts.store);
    if (id === undefined) throw badRequest("Invalid <assignedUsers>: each <user> needs an <id>");
    return id;
  });
  return {
    storyId: opts.storyId,
    name: readRequiredText(el, "name"),
    description: readText(el, "description"),
    statusId: readStatus(el, opts.project),
    estimatedEffort: readDecimal(el, "estimatedEffort"),
    startedAt: readLongDate(el, "startedAt"),
    completedAt: readLongDate(el, "completedAt"),
    assignedUserIds: [...new Set(users)],
  };
}

function readStatus(el: XmlElement, project: ProjectRecord): number {
  const statuses = project.taskStatuses;
  const first = statuses[0];
  if (first === undefined) throw badRequest(`Project ${project.id} has no task statuses`);
  const status = childOf(el, "status");
  let id = readInt(el, "taskStatusId", 0);
  let element = "taskStatusId";
  if (id === undefined && status !== undefined) {
    element = "status";
    const legacy = (childOf(status, "name")?.text ?? status.text).trim();
    if (childOf(status, "id") !== undefined) id = readInt(status, "id", 0);
    else if (legacy !== "") return legacyStatusId(legacy, project);
  }
  if (id === undefined) return first.id;
  if (!statuses.some((s) => s.id === id)) {
    throw badRequest(
      `Invalid <${element}>: ${id} is not a task status of project ${project.id}` +
        ` (valid: ${statuses.map((s) => `${s.id} ${s.name}`).join(", ")})`,
    );
  }
  return id;
}

/** PENDING → the first status, IN_PROGRESS → the one named `IN PROGRESS`, COMPLETED → the last. */
function legacyStatusId(name: string, project: ProjectRecord): number {
  const statuses = project.taskStatuses;
  if (!LEGACY_STATUSES.includes(name as LegacyStatus)) {
    const named = statuses.find((s) => s.name === name);
    if (named) return named.id;
    throw badRequest(
      `Invalid <status>: ${JSON.stringify(name)} is not one of ${LEGACY_STATUSES.join(", ")}` +
        ` or a status id of project ${project.id}`,
    );
  }
  const last = statuses[statuses.length - 1];
  const first = statuses[0];
  if (name === "PENDING" || !first || !last) return first?.id ?? 0;
  if (name === "COMPLETED") return last.id;
  const inProgress =
    statuses.find((s) => s.name === "IN PROGRESS" || s.name === "IN_PROGRESS") ??
    statuses.find((s) => s !== first && s !== last) ??
    first;
  return inProgress.id;
}
