/**
 * Every write to an issue through the endpoints makes the adapter forget the version it knew of
 * that issue (known-versions.ts): whatever path wrote it (an update, a transition, a sprint move,
 * the entity property, a delete), the issue is unknown until a read hands it to the engine again.
 * Forgotten before the write and again after it, so that a read finishing meanwhile cannot leave
 * the old version standing. A comment or worklog the write answered is noted by its caller
 * (writes.ts); a failed one leaves the issue unknown (it may have been added all the same).
 */
import type { JiraEndpoints } from "./client.js";
import { forgetIssue, type KnownVersions } from "./known-versions.js";

async function forgetting<T>(
  known: KnownVersions,
  keys: readonly string[],
  write: () => Promise<T>,
): Promise<T> {
  for (const key of keys) forgetIssue(known, key);
  try {
    return await write();
  } finally {
    for (const key of keys) forgetIssue(known, key);
  }
}

async function forgettingOnFailure<T>(
  known: KnownVersions,
  key: string,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    forgetIssue(known, key);
    throw error;
  }
}

export function watchWrites(api: JiraEndpoints, known: KnownVersions): JiraEndpoints {
  return {
    ...api,
    editIssue: (key, body) => forgetting(known, [key], () => api.editIssue(key, body)),
    getThenEditIssue: (key, read, build) =>
      forgetting(known, [key], () => api.getThenEditIssue(key, read, build)),
    deleteIssue: (key) => forgetting(known, [key], () => api.deleteIssue(key)),
    doTransition: (key, id, fields) =>
      forgetting(known, [key], () => api.doTransition(key, id, fields)),
    setProperty: (key, propertyKey, value) =>
      forgetting(known, [key], () => api.setProperty(key, propertyKey, value)),
    moveToSprint: (sprintId, keys) =>
      forgetting(known, keys, () => api.moveToSprint(sprintId, keys)),
    moveToBacklog: (keys) => forgetting(known, keys, () => api.moveToBacklog(keys)),
    // Deleting a sprint sends its issues to the backlog: which ones is not known here.
    deleteSprint: async (sprintId) => {
      known.clear();
      try {
        return await api.deleteSprint(sprintId);
      } finally {
        known.clear();
      }
    },
    addComment: (key, body) => forgettingOnFailure(known, key, () => api.addComment(key, body)),
    addWorklog: (key, w) => forgettingOnFailure(known, key, () => api.addWorklog(key, w)),
  };
}
