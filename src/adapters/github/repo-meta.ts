import type { Iteration, IterationDraft } from "../../core/model.js";
import { PayloadInvalidError } from "../../core/errors.js";
import { dueOnFor } from "./due-date.js";
import { toIteration } from "./map.js";
import type { GithubContext } from "./context.js";
import { fetchOne, pages, parse } from "./requests.js";
import { rawLabelSchema, rawMilestoneSchema, type RawLabel } from "./schema.js";

/** Repository labels and milestones: list, and ensure (create what is missing). */

/** A repository label as the mapping defines it. */
export interface LabelSpec {
  readonly name: string;
  /** Hex without `#`. */
  readonly color?: string | undefined;
  readonly description?: string | undefined;
}

async function listAll<T>(
  ctx: GithubContext,
  url: string,
  operation: string,
  read: (items: unknown[]) => T[],
  signal?: AbortSignal,
): Promise<T[]> {
  const out: T[] = [];
  const first = {
    method: "GET" as const,
    url,
    params: { per_page: 100, state: "all" },
    operation,
    signal,
  };
  for await (const page of pages(ctx, first)) {
    if (page !== "not-modified") out.push(...read(page.items));
  }
  return out;
}

export function listLabels(ctx: GithubContext, signal?: AbortSignal): Promise<RawLabel[]> {
  const operation = "issues.listLabelsForRepo";
  return listAll(
    ctx,
    "/repos/{owner}/{repo}/labels",
    operation,
    (items) => parse(rawLabelSchema.array(), items, { operation }),
    signal,
  );
}

/**
 * Creates the missing labels and fixes colour/description drift; returns what it wrote and the
 * names (lower case) of every label the repository holds now.
 */
export async function ensureLabels(
  ctx: GithubContext,
  wanted: readonly LabelSpec[],
  signal?: AbortSignal,
): Promise<{ created: string[]; updated: string[]; names: Set<string> }> {
  const existing = new Map((await listLabels(ctx, signal)).map((l) => [l.name.toLowerCase(), l]));
  const created: string[] = [];
  const updated: string[] = [];
  for (const spec of wanted) {
    const have = existing.get(spec.name.toLowerCase());
    const color = spec.color?.replace(/^#/, "").toLowerCase();
    const body = {
      ...(color === undefined ? {} : { color }),
      ...(spec.description === undefined ? {} : { description: spec.description }),
    };
    if (have === undefined) {
      await fetchOne(ctx, {
        method: "POST",
        url: "/repos/{owner}/{repo}/labels",
        params: { name: spec.name, ...body },
        operation: "issues.createLabel",
        id: spec.name,
        signal,
      });
      created.push(spec.name);
      existing.set(spec.name.toLowerCase(), { name: spec.name });
    } else if (
      (color !== undefined && have.color?.toLowerCase() !== color) ||
      (spec.description !== undefined && (have.description ?? "") !== spec.description)
    ) {
      await fetchOne(ctx, {
        method: "PATCH",
        url: "/repos/{owner}/{repo}/labels/{name}",
        params: { name: have.name, ...body },
        operation: "issues.updateLabel",
        id: spec.name,
        signal,
      });
      updated.push(spec.name);
    }
  }
  return { created, updated, names: new Set(existing.keys()) };
}

export function listMilestones(ctx: GithubContext, signal?: AbortSignal): Promise<Iteration[]> {
  const operation = "issues.listMilestones";
  return listAll(
    ctx,
    "/repos/{owner}/{repo}/milestones",
    operation,
    (items) => parse(rawMilestoneSchema.array(), items, { operation }).map(toIteration),
    signal,
  );
}

/**
 * The milestone titled like the draft, created (with description and due date) when missing;
 * `onCreated` is told of one it created (not of one an earlier attempt may have made).
 */
export async function ensureMilestone(
  ctx: GithubContext,
  draft: IterationDraft,
  known: Iteration[] | undefined,
  signal?: AbortSignal,
  onCreated?: (made: Iteration) => void,
): Promise<Iteration> {
  const all = known ?? (await listMilestones(ctx, signal));
  const found = all.find((m) => m.name === draft.name);
  if (found !== undefined) return found;
  const operation = "issues.createMilestone";
  const params: Record<string, unknown> = { title: draft.name };
  if (draft.goal !== undefined) params.description = draft.goal;
  if (draft.endDate !== undefined) params.due_on = dueOnFor(draft.endDate);
  if (draft.state === "closed") params.state = "closed";
  let res: Awaited<ReturnType<typeof fetchOne>>;
  try {
    res = await fetchOne(ctx, {
      method: "POST",
      url: "/repos/{owner}/{repo}/milestones",
      params,
      operation,
      id: draft.name,
      signal,
    });
  } catch (error) {
    // Created by an earlier attempt whose answer was lost (or by someone else since `known` was
    // read): take the existing milestone rather than fail on GitHub's 422 `already_exists`. Any
    // 422 is looked at so: one cut off in transit no longer says which error it was.
    if (!(error instanceof PayloadInvalidError)) throw error;
    const again = (await listMilestones(ctx, signal)).find((m) => m.name === draft.name);
    if (again === undefined) throw error;
    all.push(again);
    return again;
  }
  const made = toIteration(parse(rawMilestoneSchema, res.data, { operation }));
  all.push(made);
  onCreated?.(made);
  return made;
}
