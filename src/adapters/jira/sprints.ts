import { ConfigError, NotFoundError } from "../../core/errors.js";
import type { Iteration, IterationDraft, IterationRef } from "../../core/model.js";
import type { JiraContext } from "./context.js";
import { rawSprint, rawSprintIssuePage, rawSprintPage, type RawSprint } from "./schema.js";

/** A Jira sprint as a canonical iteration (dates as `YYYY-MM-DD`). */
export function toIteration(s: RawSprint): Iteration {
  const state =
    s.state === "future" || s.state === "active" || s.state === "closed" ? s.state : undefined;
  return {
    id: String(s.id),
    name: s.name,
    ...(s.goal && { goal: s.goal }),
    ...(s.startDate && { startDate: s.startDate.slice(0, 10) }),
    ...(s.endDate && { endDate: s.endDate.slice(0, 10) }),
    ...(state && { state }),
  };
}

/** Start and end of a sprint drafted from an iteration (end = start + duration when absent). */
function sprintDates(draft: IterationDraft): { startDate?: string; endDate?: string } {
  const start = draft.startDate;
  let end = draft.endDate;
  if (end === undefined && start !== undefined && draft.durationDays !== undefined) {
    const ms = Date.parse(`${start}T00:00:00Z`) + draft.durationDays * 86_400_000;
    end = new Date(ms).toISOString().slice(0, 10);
  }
  return {
    ...(start !== undefined && { startDate: `${start}T09:00:00.000+00:00` }),
    ...(end !== undefined && { endDate: `${end}T17:00:00.000+00:00` }),
  };
}

async function boardId(ctx: JiraContext): Promise<number> {
  const site = await ctx.site();
  if (site.boardId === undefined) {
    throw new ConfigError(
      `Jira project ${ctx.settings.projectKey} has no scrum board, so it has no sprints.`,
      {
        hint: "Create a scrum board for the project or set `boardId` in the Jira target config.",
      },
    );
  }
  return site.boardId;
}

export async function listSprints(ctx: JiraContext): Promise<RawSprint[]> {
  const id = await boardId(ctx);
  const all: RawSprint[] = [];
  for (;;) {
    const page = ctx.client.parse(rawSprintPage, await ctx.api.sprints(id, all.length), {
      operation: "GET /rest/agile/1.0/board/{id}/sprint",
      id: String(id),
    });
    all.push(...page.values);
    if (page.isLast !== false || page.values.length === 0) return all;
  }
}

/** The board's sprints, listed once per adapter (until it creates a sprint). */
function cachedSprints(ctx: JiraContext): Promise<RawSprint[]> {
  const cache = ctx.sprints;
  if (cache.promise) return cache.promise;
  const pending: Promise<RawSprint[]> = listSprints(ctx).catch((error: unknown) => {
    if (cache.promise === pending) cache.promise = undefined;
    throw error;
  });
  cache.promise = pending;
  return pending;
}

/** Finds the sprint named like the iteration on the board, or creates a future sprint. */
export async function ensureSprint(
  ctx: JiraContext,
  draft: IterationDraft,
  known?: RawSprint[],
): Promise<RawSprint> {
  const sprints = known ?? (await cachedSprints(ctx));
  const found = sprints.find((s) => s.name === draft.name);
  if (found) return found;
  const inFlight = ctx.sprints.ensuring.get(draft.name);
  if (inFlight) return inFlight;
  const creating = createSprint(ctx, draft).finally(() => {
    ctx.sprints.ensuring.delete(draft.name);
  });
  ctx.sprints.ensuring.set(draft.name, creating);
  const created = await creating;
  known?.push(created);
  return created;
}

async function createSprint(ctx: JiraContext, draft: IterationDraft): Promise<RawSprint> {
  let created: RawSprint;
  try {
    created = ctx.client.parse(
      rawSprint,
      await ctx.api.createSprint({
        name: draft.name,
        originBoardId: await boardId(ctx),
        ...sprintDates(draft),
        goal: draft.goal,
      }),
      { operation: "POST /rest/agile/1.0/sprint" },
    );
  } catch (error) {
    // The board may have changed (an answer lost): list it again next time.
    ctx.sprints.promise = undefined;
    throw error;
  }
  ctx.sprints.onCreated?.(created);
  // The board changed by this sprint alone: the listing learns it without a second read (a
  // listing still in flight may hold it already).
  const known = ctx.sprints.promise;
  if (known !== undefined) {
    const next: Promise<RawSprint[]> = known.then(
      (list) => (list.some((s) => s.id === created.id) ? list : [...list, created]),
      (error: unknown) => {
        if (ctx.sprints.promise === next) ctx.sprints.promise = undefined;
        throw error;
      },
    );
    next.catch(() => undefined); // its readers see the error; none may come
    ctx.sprints.promise = next;
  }
  return created;
}

/** The sprint id an iteration reference points at (by id, else by name through the cache). */
export async function resolveSprint(ctx: JiraContext, ref: IterationRef): Promise<number> {
  if (ref.id !== undefined && /^\d+$/.test(ref.id)) return Number(ref.id);
  const sprint = await ensureSprint(ctx, { name: ref.name });
  return sprint.id;
}

/** Moves issues into a sprint, at most 50 per call. */
export async function moveToSprint(
  ctx: JiraContext,
  sprintId: number,
  keys: readonly string[],
): Promise<void> {
  for (let i = 0; i < keys.length; i += 50)
    await ctx.api.moveToSprint(sprintId, keys.slice(i, i + 50));
}

/** The keys of every issue in the sprint (any status); none when the sprint is gone. */
export async function sprintIssueKeys(ctx: JiraContext, sprintId: number): Promise<string[]> {
  const keys: string[] = [];
  for (;;) {
    let page: unknown;
    try {
      page = await ctx.api.sprintIssues(sprintId, keys.length);
    } catch (error) {
      if (error instanceof NotFoundError) return [];
      throw error;
    }
    const read = ctx.client.parse(rawSprintIssuePage, page, {
      operation: "GET /rest/agile/1.0/sprint/{id}/issue",
      id: String(sprintId),
    });
    keys.push(...read.issues.map((i) => i.key));
    if (read.issues.length === 0 || keys.length >= read.total) return keys;
  }
}

/** Deletes the sprint (its open issues go back to the backlog); gone already is no error. */
export async function deleteSprint(ctx: JiraContext, sprintId: number): Promise<void> {
  try {
    await ctx.api.deleteSprint(sprintId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}
