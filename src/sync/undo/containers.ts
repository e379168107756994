import { PayloadInvalidError, PermissionError } from "../../core/errors.js";
import { systemLabel } from "../../core/system-label.js";
import type { ContainerUser } from "../../core/tracker.js";
import { readContainerCreations, type ContainerCreation } from "./creations.js";
import type { UndoContainer, UndoContainerKept, UndoItem, UndoOptions } from "./undo-types.js";

/** What `undo` did with the milestones, sprints and labels the run created. */
export interface ContainersUndone {
  readonly removed: UndoContainer[];
  readonly kept: UndoContainerKept[];
}

const doneKey = (runId: string): string => `undo:${runId}@containers`;
const keyOf = (c: Pick<ContainerCreation, "kind" | "id">): string => `${c.kind}:${c.id}`;
/** Users named in a reason; the rest are counted. */
const NAMED = 5;

/**
 * Takes back the iterations and labels the run created on the target (recorded as it made
 * them), after its items: each one that nothing uses any more is deleted; one that anything
 * else uses — an item this undo keeps, another job's item, a person's issue — stays and is
 * listed with what uses it. An item this undo removes (or, in a dry run, would remove), or one
 * it closed and marked undone, does not count. Each one is decided once: a rerun skips it.
 */
export async function undoContainers(
  o: UndoOptions,
  removedItems: readonly UndoItem[],
): Promise<ContainersUndone> {
  const out: ContainersUndone = { removed: [], kept: [] };
  const usersOf = o.target.containerUsers?.bind(o.target);
  const remove = o.target.deleteContainer?.bind(o.target);
  if (usersOf === undefined || remove === undefined) return out;
  const created = await readContainerCreations(o.state, o.job, o.runId);
  if (created.length === 0) return out;
  const done = await readDone(o);
  const gone = new Set(removedItems.filter((i) => i.side === "target").map((i) => i.targetId));
  const where = systemLabel(o.targetSystem);
  for (const c of created) {
    if (done.has(keyOf(c))) continue;
    const what = `${c.kind === "label" ? "label" : "iteration"} "${c.name}"`;
    const users: readonly ContainerUser[] = await o.lanes.run(o.targetSystem, {
      name: `list the items of ${what}`,
      kind: "read",
      run: () => usersOf(c),
    });
    const others = users
      .filter((u) => !gone.has(u.id) && u.undone !== o.runId)
      .map((u) => (o.targetSystem === "github" ? `#${u.id}` : u.id));
    const named: UndoContainer = { kind: c.kind, id: c.id, name: c.name };
    let reason: string | undefined =
      others.length === 0
        ? undefined
        : `still used by ${where} ${others.slice(0, NAMED).join(", ")}${others.length > NAMED ? ` and ${others.length - NAMED} more` : ""}`;
    if (reason === undefined && !o.dryRun) {
      try {
        await o.lanes.run(o.targetSystem, {
          name: `delete ${what}`,
          kind: "write",
          run: () => remove(c),
        });
      } catch (error) {
        // Refused for good (a closed Jira sprint, a token without the right): left and listed.
        if (!(error instanceof PayloadInvalidError || error instanceof PermissionError))
          throw error;
        reason = `${where} refused to delete it: ${error.message}`;
      }
    }
    if (reason === undefined) out.removed.push(named);
    else out.kept.push({ ...named, reason });
    if (!o.dryRun) {
      done.add(keyOf(c));
      await o.state.setCheckpoint(o.job, doneKey(o.runId), { done: JSON.stringify([...done]) });
    }
  }
  return out;
}

async function readDone(o: UndoOptions): Promise<Set<string>> {
  const cp = await o.state.getCheckpoint(o.job, doneKey(o.runId));
  return new Set(typeof cp?.done === "string" ? (JSON.parse(cp.done) as string[]) : []);
}
