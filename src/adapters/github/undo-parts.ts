import { NotFoundError, PermissionError } from "../../core/errors.js";
import type { ContainerUser, TrackerContainer } from "../../core/tracker.js";
import type { GithubContext } from "./context.js";
import { parseIssueBody } from "./marker.js";
import type { ProjectBoard } from "./project-board.js";
import { mustGetRawIssue, readIssue } from "./reads.js";
import { fetchOne, pages, parse } from "./requests.js";
import { rawRepoSchema, type RawIssue } from "./schema.js";

/**
 * What `undo` needs of GitHub beyond the tracker's reads and writes: the issues that use a
 * milestone or label, deleting one, and deleting an issue for good (GraphQL `deleteIssue`, the
 * only way GitHub deletes an issue; REST has none, and only admins of the repository may).
 */

/** Every issue (any state) with the milestone or label, with the run whose undo closed it. */
export async function containerUsers(
  ctx: GithubContext,
  c: TrackerContainer,
  signal?: AbortSignal,
): Promise<ContainerUser[]> {
  const operation = "issues.listForRepo";
  const filter = c.kind === "iteration" ? { milestone: c.id } : { labels: c.name };
  const out: ContainerUser[] = [];
  const first = {
    method: "GET" as const,
    url: "/repos/{owner}/{repo}/issues",
    params: { state: "all", per_page: 100, ...filter },
    operation,
    signal,
  };
  try {
    for await (const page of pages(ctx, first)) {
      if (page === "not-modified") break;
      for (const raw of page.items) {
        // A pull request with the label uses it too: counted, though no issue.
        const issue = readIssue(ctx, raw, operation);
        const number = (raw as { number?: unknown }).number;
        const undone = parseIssueBody(issue?.body).block?.marker.undone;
        out.push({ id: String(number), ...(undone === undefined ? {} : { undone }) });
      }
    }
  } catch (error) {
    // A milestone deleted since (GitHub answers 404 to the filter on an unknown number).
    if (error instanceof NotFoundError) return [];
    throw error;
  }
  return out;
}

/**
 * The issues whose Project (v2) item has the iteration (by title), with the run whose undo
 * closed each, if one did (read from the issue's marker); an issue deleted since uses nothing.
 */
export async function boardIterationUsers(
  ctx: GithubContext,
  board: Pick<ProjectBoard, "iterationUsers">,
  title: string,
  signal?: AbortSignal,
): Promise<ContainerUser[]> {
  const out: ContainerUser[] = [];
  for (const number of await board.iterationUsers(title, signal)) {
    let issue: RawIssue;
    try {
      issue = await mustGetRawIssue(ctx, String(number), signal);
    } catch (error) {
      if (error instanceof NotFoundError) continue;
      throw error;
    }
    const undone = parseIssueBody(issue.body).block?.marker.undone;
    out.push({ id: String(number), ...(undone === undefined ? {} : { undone }) });
  }
  return out;
}

/** Deletes the milestone (by number) or label (by name); one gone already is no error. */
export async function deleteContainer(
  ctx: GithubContext,
  c: TrackerContainer,
  signal?: AbortSignal,
): Promise<void> {
  const req =
    c.kind === "iteration"
      ? {
          url: "/repos/{owner}/{repo}/milestones/{milestone_number}",
          params: { milestone_number: Number(c.id) },
          operation: "issues.deleteMilestone",
        }
      : {
          url: "/repos/{owner}/{repo}/labels/{name}",
          params: { name: c.name },
          operation: "issues.deleteLabel",
        };
  try {
    await fetchOne(ctx, { method: "DELETE", ...req, id: c.id, signal });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

/** Whether the token is an admin of the repository (who alone may delete issues). */
export async function canDeleteIssues(ctx: GithubContext, signal?: AbortSignal): Promise<boolean> {
  const res = await fetchOne(ctx, {
    method: "GET",
    url: "/repos/{owner}/{repo}",
    operation: "repos.get",
    signal,
  });
  return parse(rawRepoSchema, res.data, { operation: "repos.get" }).permissions?.admin === true;
}

const DELETE_ISSUE = /* GraphQL */ `
  mutation DeleteIssue($input: DeleteIssueInput!) {
    deleteIssue(input: $input) {
      clientMutationId
    }
  }
`;

/**
 * Deletes the issue for good (GraphQL `deleteIssue`; GitHub answers 410 for its number after).
 * Gone already is no error; a token without admin rights gets a `PermissionError`.
 */
export async function deleteIssue(
  ctx: GithubContext,
  number: string,
  signal?: AbortSignal,
): Promise<void> {
  let node = ctx.nodeIds.get(Number(number));
  if (node === undefined) {
    try {
      await mustGetRawIssue(ctx, number, signal);
    } catch (error) {
      if (error instanceof NotFoundError) return;
      throw error;
    }
    node = ctx.nodeIds.get(Number(number));
  }
  if (node === undefined)
    throw new NotFoundError(`GitHub issue #${number} has no node id, so it cannot be deleted`, {
      system: "github",
      operation: "deleteIssue",
      id: number,
    });
  try {
    await ctx.client.graphql({
      query: DELETE_ISSUE,
      variables: { input: { issueId: node } },
      operation: "deleteIssue",
      write: true,
      // Sent again after a lost answer, it finds the issue gone: NOT_FOUND, taken as done.
      idempotent: true,
      signal,
    });
  } catch (error) {
    if (error instanceof NotFoundError) return;
    if (error instanceof PermissionError)
      throw new PermissionError(
        `GitHub refused to delete issue #${number}: ${error.message}`,
        { system: "github", operation: "deleteIssue", id: number },
        {
          hint: "Only a token of a repository admin may delete issues; without one, `undo` closes them as not planned and marks them undone.",
        },
      );
    throw error;
  }
}
