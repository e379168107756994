import { PayloadInvalidError } from "../../core/errors.js";
import type { CommentDraft, WorkItemDraft } from "../../core/model.js";
import { IMPORT_ACCEPT } from "./client.js";
import { createBodyFor, numberFromUrl, stateFor } from "./map.js";
import type { GithubContext } from "./context.js";
import { fetchOne, parse } from "./requests.js";
import { rawImportSchema, type RawImport } from "./schema.js";
import { commentBodyFor } from "./writes.js";

/** An issue import GitHub refused: `errors` are GitHub's `{location, resource, field, value, code}`. */
export class ImportFailedError extends PayloadInvalidError {
  readonly importErrors: readonly unknown[];
  constructor(message: string, importId: number, importErrors: readonly unknown[]) {
    super(
      message,
      { system: "github", operation: "import.issues", id: String(importId) },
      {
        hint: "Fix the named fields (labels, assignee, milestone) or import without importApi.",
        details: { errors: importErrors },
      },
    );
    this.importErrors = importErrors;
  }
}

interface ImportOptions {
  /** Real milliseconds between polls (already scaled). */
  readonly pollMs: number;
  readonly maxPolls?: number | undefined;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The import payload: the issue (closed flag, labels, milestone, one assignee) and its comments. */
export function importPayload(
  draft: WorkItemDraft,
  milestone: number | undefined,
  comments: readonly CommentDraft[],
): Record<string, unknown> {
  const base = createBodyFor(draft, milestone);
  // Only `closed:completed` can be imported closed: the import API takes no state reason.
  const s = stateFor(draft.status);
  const closed = s.state === "closed" && s.state_reason === "completed";
  const issue: Record<string, unknown> = {
    title: base.title,
    body: base.body,
    closed,
    labels: base.labels,
  };
  if (base.assignees[0] !== undefined) issue.assignee = base.assignees[0];
  if (milestone !== undefined) issue.milestone = milestone;
  return {
    issue,
    comments: comments.map((c) => ({ body: commentBodyFor(c), created_at: c.createdAt })),
  };
}

function describeErrors(errors: readonly unknown[]): string {
  return errors
    .map((e) => {
      const r = e as { resource?: string; field?: string; code?: string; value?: unknown };
      return `${r.resource ?? "?"}.${r.field ?? "?"} ${r.code ?? "invalid"}${r.value === undefined ? "" : ` (${JSON.stringify(r.value)})`}`;
    })
    .join("; ");
}

/**
 * One `POST /import/issues` call (issue and comments together), polled until `imported`
 * (returns the issue number) or `failed` (throws `ImportFailedError` naming the errors).
 */
export async function importIssue(
  ctx: GithubContext,
  payload: Record<string, unknown>,
  opts: ImportOptions,
  signal?: AbortSignal,
): Promise<string> {
  const headers = { accept: IMPORT_ACCEPT };
  const res = await fetchOne(ctx, {
    method: "POST",
    url: "/repos/{owner}/{repo}/import/issues",
    params: payload,
    headers,
    operation: "import.issues",
    signal,
  });
  let status: RawImport = parse(rawImportSchema, res.data, { operation: "import.issues" });
  const maxPolls = opts.maxPolls ?? 120;
  for (let poll = 0; poll < maxPolls; poll++) {
    if (status.status === "imported") {
      const number = numberFromUrl(status.issue_url);
      if (number !== undefined) return number;
    }
    if (status.status === "failed") {
      const errors = status.errors ?? [];
      throw new ImportFailedError(
        `GitHub import ${status.id} failed: ${describeErrors(errors) || "no errors given"}`,
        status.id,
        errors,
      );
    }
    await opts.sleep(Math.min(opts.pollMs * 2 ** Math.min(poll, 4), opts.pollMs * 16), signal);
    const polled = await fetchOne(ctx, {
      method: "GET",
      url: "/repos/{owner}/{repo}/import/issues/{id}",
      params: { id: status.id },
      headers,
      operation: "import.issues.status",
      id: String(status.id),
      signal,
    });
    status = parse(rawImportSchema, polled.data, { operation: "import.issues.status" });
  }
  throw new PayloadInvalidError(
    `GitHub import ${status.id} still "${status.status}" after ${maxPolls} polls`,
    { system: "github", operation: "import.issues.status", id: String(status.id) },
    { hint: "Check the import later with GET /repos/{owner}/{repo}/import/issues." },
  );
}
