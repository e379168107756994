import { PayloadInvalidError } from "../../core/errors.js";
import type { JiraContext } from "./context.js";
import { rawIssue, rawStatuses, rawTransitions } from "./schema.js";
import { nextTransition, type WorkflowEdge } from "./workflow.js";

const DEFAULT_RESOLUTIONS: Readonly<Record<string, string>> = {
  Done: "Done",
  Rejected: "Won't Do",
};
const MAX_STEPS = 16;

interface TransitionOptions {
  readonly signal?: AbortSignal | undefined;
  /** The issue's status and type when the caller knows them (saves a read). */
  readonly current?: { readonly status: string; readonly issueType: string } | undefined;
  /** Set when moving an issue back after a failed search (no second return trip). */
  readonly returning?: boolean | undefined;
  /**
   * Takes the listing of the transitions out of the status reached (when not known yet) instead
   * of waiting for it: the caller reads the issue back meanwhile and waits for both.
   */
  readonly learning?: ((listing: Promise<unknown>) => void) | undefined;
}

/** The statuses reachable from `status` through one transition, as Jira lists them now. */
export async function listTransitions(ctx: JiraContext, key: string): Promise<WorkflowEdge[]> {
  const raw = ctx.client.parse(rawTransitions, await ctx.api.getTransitions(key), {
    operation: "GET /rest/api/3/issue/{key}/transitions",
    id: key,
  });
  return raw.transitions.map((t) => ({
    id: t.id,
    name: t.name,
    to: t.to.name,
    requires: Object.entries(t.fields ?? {})
      .filter(([, f]) => f.required === true)
      .map(([name]) => name),
  }));
}

async function readStatus(
  ctx: JiraContext,
  key: string,
): Promise<{ status: string; issueType: string }> {
  const raw = await ctx.api.getIssue(key, ["status", "issuetype", "summary"], []);
  const issue = ctx.client.parse(rawIssue, raw, {
    operation: "GET /rest/api/3/issue/{key}",
    id: key,
  });
  return { status: issue.fields.status.name, issueType: issue.fields.issuetype.name };
}

function graphFor(ctx: JiraContext, issueType: string): Map<string, readonly WorkflowEdge[]> {
  const known = ctx.graphs.get(issueType);
  if (known) return known;
  const graph = new Map<string, readonly WorkflowEdge[]>();
  ctx.graphs.set(issueType, graph);
  return graph;
}

export function requiredFields(
  ctx: JiraContext,
  edge: WorkflowEdge,
): Record<string, unknown> | undefined {
  if (!edge.requires?.includes("resolution")) return undefined;
  const name = ctx.settings.statusResolutions[edge.to] ?? DEFAULT_RESOLUTIONS[edge.to] ?? "Done";
  return { resolution: { name } };
}

/**
 * The first transition of a known path from the issue type's initial status to `target`, for a
 * create to carry; undefined while the initial status or the path is not yet learned (then the
 * follow-up transitions find the way as before).
 */
export function firstStepOnCreate(
  ctx: JiraContext,
  issueType: string,
  target: string,
):
  | { readonly edge: WorkflowEdge; readonly fields: Record<string, unknown> | undefined }
  | undefined {
  const initial = ctx.initialStatus.get(issueType);
  const graph = ctx.graphs.get(issueType);
  if (initial === undefined || graph === undefined) return undefined;
  const next = nextTransition({ graph, current: initial, target });
  if (next.kind !== "step" || next.exploring) return undefined;
  return { edge: next.edge, fields: requiredFields(ctx, next.edge) };
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Lists the transitions of a probe just created (in its issue type's initial status, not known
 * yet) while its status is being read back: both reads in one round trip. The answer is kept
 * under the status read, once known; a failed listing is left to the walk to ask again.
 */
export async function learnWhileReading(
  ctx: JiraContext,
  key: string,
  issueType: string,
  status: Promise<string | undefined>,
): Promise<void> {
  const [edges, name] = await Promise.all([
    listTransitions(ctx, key).catch(() => undefined),
    status.catch(() => undefined),
  ]);
  if (edges === undefined || name === undefined) return;
  const graph = graphFor(ctx, issueType);
  if (!graph.has(name)) graph.set(name, edges);
}

/**
 * Learns the transitions out of `status` of `issueType` from issue `key` (which is in it), once:
 * concurrent walks through one status share one `GET …/transitions`, and a known status costs
 * nothing. A failed read is forgotten (the next walk asks again).
 */
function learnTransitions(
  ctx: JiraContext,
  key: string,
  issueType: string,
  status: string,
): Promise<readonly WorkflowEdge[]> {
  const graph = graphFor(ctx, issueType);
  const known = graph.get(status);
  if (known !== undefined) return Promise.resolve(known);
  const id = `${issueType}|${status}`;
  const inFlight = ctx.listing.get(id);
  if (inFlight !== undefined) return inFlight;
  const listing = listTransitions(ctx, key)
    .then((edges) => {
      graph.set(status, edges);
      return edges;
    })
    .finally(() => ctx.listing.delete(id));
  ctx.listing.set(id, listing);
  return listing;
}

/**
 * Moves an issue to `target` one transition at a time: a breadth-first search over the workflow
 * as learned from `GET …/transitions` (cached per issue type and status), filling required
 * fields such as the resolution. An unreachable status is a PayloadInvalidError naming the
 * reachable ones. Returns the number of transitions made.
 */
/** The status names of the site (cached per tracker): a target outside them fails before any move. */
export function knownStatuses(ctx: JiraContext): Promise<readonly string[]> {
  const load = async (): Promise<readonly string[]> => {
    const raw = ctx.client.parse(rawStatuses, await ctx.api.statuses(), {
      operation: "GET /rest/api/3/status",
    });
    return [...new Set(raw.map((s) => s.name))];
  };
  ctx.statuses.promise ??= load().catch((error: unknown) => {
    ctx.statuses.promise = undefined;
    throw error;
  });
  return ctx.statuses.promise;
}

export async function transitionTo(
  ctx: JiraContext,
  key: string,
  target: string,
  opts: TransitionOptions = {},
): Promise<number> {
  const start = opts.current ?? (await readStatus(ctx, key));
  let status = start.status;
  const graph = graphFor(ctx, start.issueType);
  // The site's statuses and the first status's transitions are read together (both reads, one
  // round trip): the check below still comes before any move.
  const first = same(status, target)
    ? Promise.resolve(undefined)
    : learnTransitions(ctx, key, start.issueType, status);
  first.catch(() => undefined); // its error is rethrown below, after the status check
  const statuses = await knownStatuses(ctx);
  if (!statuses.some((s) => s.toLowerCase() === target.toLowerCase())) {
    throw new PayloadInvalidError(
      `Jira issue ${key} cannot move to "${target}": the site has no such status (statuses: ${statuses.join(", ")}).`,
      { system: "jira", operation: "transition", id: key },
      {
        hint: "Map the status to one of the site's statuses in the mapping file.",
        details: { target, statuses },
      },
    );
  }
  await first;
  let retried = false;
  for (let steps = 0; steps < MAX_STEPS;) {
    if (!graph.has(status)) {
      // Arrived: the transitions out of the status reached teach later creates their first
      // step; the caller may let them come while it reads the issue back.
      if (same(status, target) && opts.learning !== undefined) {
        const listing = learnTransitions(ctx, key, start.issueType, status);
        listing.catch(() => undefined); // the caller waits for it; a failure only teaches less
        opts.learning(listing);
        return steps;
      }
      await learnTransitions(ctx, key, start.issueType, status);
    }
    const next = nextTransition({ graph, current: status, target });
    if (next.kind === "arrived") return steps;
    if (next.kind === "unreachable") {
      if (status !== start.status && opts.returning !== true) {
        await transitionTo(ctx, key, start.status, {
          signal: opts.signal,
          current: { status, issueType: start.issueType },
          returning: true,
        });
      }
      throw unreachable(ctx, key, start.status, target, next.reachable);
    }
    try {
      await ctx.api.doTransition(key, next.edge.id, requiredFields(ctx, next.edge));
    } catch (error) {
      if (retried || !(error instanceof PayloadInvalidError)) throw error;
      retried = true; // the workflow may differ from what we learned: re-read and re-plan once
      graph.delete(status);
      ({ status } = await readStatus(ctx, key));
      continue;
    }
    status = next.edge.to;
    steps++;
  }
  throw new PayloadInvalidError(
    `Jira issue ${key} did not reach status "${target}" within ${MAX_STEPS} transitions (now "${status}").`,
    { system: "jira", operation: "transition", id: key },
    { hint: "Check the project's workflow for loops or conditions on transitions." },
  );
}

function unreachable(
  ctx: JiraContext,
  key: string,
  from: string,
  target: string,
  reachable: readonly string[],
): PayloadInvalidError {
  const list = reachable.length > 0 ? reachable.join(", ") : "none";
  return new PayloadInvalidError(
    `Jira issue ${key} cannot move from "${from}" to "${target}": no transition path in the ${ctx.settings.projectKey} workflow (reachable: ${list}).`,
    { system: "jira", operation: "transition", id: key },
    {
      hint: "Map the status to one of the reachable ones in the mapping file.",
      details: { from, target, reachable },
    },
  );
}
