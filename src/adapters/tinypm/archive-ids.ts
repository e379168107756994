import type { ArchiveUserRef, TinypmArchive } from "./archive.js";

/** Stable ordinals per id space, given in order of first appearance. */
function ordinals(): (id: string | null) => string | null {
  const seen = new Map<string, string>();
  return (id) => {
    if (id === null) return null;
    let n = seen.get(id);
    if (n === undefined) {
      n = String(seen.size + 1);
      seen.set(id, n);
    }
    return n;
  };
}

/**
 * Replaces every id of an archive by a stable ordinal (users by the archive's user order,
 * iterations, statuses, stories and tasks by theirs), so that two archives of equal projects
 * compare equal "ids aside". Pure: the input is not changed.
 */
export function normalizeArchiveIds(archive: TinypmArchive): TinypmArchive {
  const user = ordinals();
  const iteration = ordinals();
  const status = ordinals();
  const story = ordinals();
  const task = ordinals();
  for (const u of archive.users) user(u.id);
  for (const i of archive.iterations) iteration(i.id);
  for (const s of archive.taskStatuses) status(s.id);
  const ref = (u: ArchiveUserRef | null): ArchiveUserRef | null =>
    u && { ...u, id: user(u.id) ?? "" };
  return {
    ...archive,
    project: { ...archive.project, id: "1", owner: ref(archive.project.owner) },
    users: archive.users.map((u) => ({ ...u, id: user(u.id) ?? "" })),
    iterations: archive.iterations.map((i) => ({ ...i, id: iteration(i.id) ?? "" })),
    taskStatuses: archive.taskStatuses.map((s) => ({ ...s, id: status(s.id) ?? "" })),
    stories: archive.stories.map((s) => ({
      ...s,
      id: story(s.id) ?? "",
      iteration: s.iteration && { ...s.iteration, id: iteration(s.iteration.id) ?? "" },
      owner: ref(s.owner),
      acceptingUser: ref(s.acceptingUser),
      tasks: s.tasks.map((t) => ({
        ...t,
        id: task(t.id) ?? "",
        status: { ...t.status, id: status(t.status.id) },
        assignedUsers: t.assignedUsers
          .map((u) => ref(u))
          .filter((u): u is ArchiveUserRef => u !== null)
          .sort((a, b) => Number(a.id) - Number(b.id)),
        timeEntries: t.timeEntries.map((e) => ({ ...e, user: ref(e.user) })),
      })),
    })),
  };
}
