import { noteComment } from "./events.js";
import { isoSeconds, parseTimestamp } from "./clock.js";
import { json, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { GithubError, invalidRequest, notFound, type GithubFieldError } from "./errors.js";
import { checkBodyLength, labelIds } from "./issue-ops.js";
import { repoApiUrl } from "./render.js";
import {
  collaboratorLogin,
  created,
  findMilestone,
  nextIssueNumber,
  type CommentRecord,
  type IssueRecord,
  type Store,
} from "./store.js";

/**
 * The issue import API (`POST /repos/{o}/{r}/import/issues`, preview "golden-comet"): one call
 * creates an issue with its comments and original timestamps, asynchronously. Submissions are
 * answered 202 `pending` and processed one at a time in order; polling shows `imported` (with
 * `issue_url`) or `failed` (with `errors`). Admin only, at most 1 MB, the preview media type is
 * required. It costs primary quota but is not counted as content creation.
 */
interface ImportApi {
  readonly routes: readonly RouteDef[];
  /** Drops every import and cancels pending processing. */
  reset(): void;
}

const PREVIEW = "application/vnd.github.golden-comet-preview";
const MAX_BYTES = 1024 * 1024;
/** Sandbox milliseconds an import stays `pending` before it is processed. */
const PROCESSING_MS = 50;

interface ImportPayload {
  readonly issue: Readonly<Record<string, unknown>>;
  readonly comments: readonly Readonly<Record<string, unknown>>[];
}

interface ImportJob {
  readonly id: number;
  status: "pending" | "imported" | "failed";
  readonly createdAt: number;
  updatedAt: number;
  readonly payload: ImportPayload;
  readonly user: string;
  issueNumber?: number;
  errors?: GithubFieldError[];
}

export function createImportApi(store: Store): ImportApi {
  let jobs: ImportJob[] = [];
  let queue: ImportJob[] = [];
  let timer: NodeJS.Timeout | undefined;
  let nextId = 0;

  const schedule = (): void => {
    if (timer !== undefined || queue.length === 0) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        const job = queue.shift();
        if (job) processJob(store, job);
        schedule();
      },
      Math.max(1, store.clock.toReal(PROCESSING_MS)),
    );
    timer.unref();
  };

  const render = (job: ImportJob): Record<string, unknown> => {
    const base = `${repoApiUrl(store)}/import/issues`;
    return {
      id: job.id,
      status: job.status,
      url: `${base}/${job.id}`,
      import_issues_url: base,
      repository_url: repoApiUrl(store),
      created_at: isoSeconds(job.createdAt),
      updated_at: isoSeconds(job.updatedAt),
      ...(job.issueNumber === undefined
        ? {}
        : { issue_url: `${repoApiUrl(store)}/issues/${job.issueNumber}` }),
      ...(job.errors === undefined ? {} : { errors: job.errors }),
    };
  };

  const submit = (ctx: RequestContext): Reply => {
    requirePreview(ctx);
    if (ctx.bodySize > MAX_BYTES)
      throw new GithubError(413, "Payload too big: the maximum request size is 1 MB");
    const now = store.clock.now();
    const job: ImportJob = {
      id: ++nextId,
      status: "pending",
      createdAt: now,
      updatedAt: now,
      payload: parsePayload(ctx.body),
      user: ctx.user.login,
    };
    jobs.push(job);
    queue.push(job);
    schedule();
    return json(202, render(job));
  };

  const status = (ctx: RequestContext): Reply => {
    requirePreview(ctx);
    const job = jobs.find((j) => j.id === Number(ctx.params.id));
    if (!job) throw notFound();
    return json(200, render(job));
  };

  const list = (ctx: RequestContext): Reply => {
    requirePreview(ctx);
    const sinceText = ctx.query.get("since");
    const since = sinceText === null ? undefined : parseTimestamp(sinceText);
    if (sinceText !== null && since === undefined)
      throw invalidRequest(`"since" must be a date (YYYY-MM-DD).`);
    return json(200, jobs.filter((j) => since === undefined || j.createdAt >= since).map(render));
  };

  return {
    routes: [
      {
        method: "POST",
        pattern: "/repos/:owner/:repo/import/issues",
        handler: submit,
        admin: true,
      },
      { method: "GET", pattern: "/repos/:owner/:repo/import/issues", handler: list, admin: true },
      {
        method: "GET",
        pattern: "/repos/:owner/:repo/import/issues/:id",
        handler: status,
        admin: true,
      },
    ],
    reset() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      jobs = [];
      queue = [];
      nextId = 0;
    },
  };
}

function requirePreview(ctx: RequestContext): void {
  if (ctx.headers.accept?.includes(PREVIEW) !== true) {
    throw new GithubError(
      415,
      "If you would like to help us test the Issue Importer API during its preview period, you must specify a custom media type in the 'Accept' header. Please see the docs for full details.",
      { documentationUrl: "https://gist.github.com/jonmagic/5282384165e0f86ef105" },
    );
  }
}

const isObject = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function parsePayload(body: unknown): ImportPayload {
  if (!isObject(body) || !isObject(body.issue)) throw invalidRequest(`"issue" wasn't supplied.`);
  const { issue } = body;
  if (typeof issue.title !== "string" || issue.title.trim() === "") {
    throw invalidRequest(
      `For 'properties/issue/title', ${JSON.stringify(issue.title)} is not a string.`,
    );
  }
  if (typeof issue.body !== "string") {
    throw invalidRequest(
      `For 'properties/issue/body', ${JSON.stringify(issue.body)} is not a string.`,
    );
  }
  const comments = body.comments ?? [];
  if (
    !Array.isArray(comments) ||
    !comments.every((c) => isObject(c) && typeof c.body === "string")
  ) {
    throw invalidRequest(`For 'properties/comments', each comment needs a string "body".`);
  }
  return { issue, comments: comments as ImportPayload["comments"] };
}

/** Checks a payload against the repository; returns the problems `failed` reports. */
function problems(store: Store, p: ImportPayload): GithubFieldError[] {
  const out: (GithubFieldError & { location: string })[] = [];
  const bad = (location: string, field: string, value: unknown): void => {
    out.push({ location, resource: "Issue", field, value, code: "invalid" });
  };
  const { issue } = p;
  for (const f of ["created_at", "updated_at", "closed_at"]) {
    const v = issue[f];
    if (
      v !== undefined &&
      v !== null &&
      (typeof v !== "string" || parseTimestamp(v) === undefined)
    ) {
      bad(`/issue/${f}`, f, v);
    }
  }
  const a = issue.assignee;
  if (
    a !== undefined &&
    a !== null &&
    (typeof a !== "string" || collaboratorLogin(store, a) === undefined)
  ) {
    bad("/issue/assignee", "assignee", a);
  }
  const m = issue.milestone;
  if (m !== undefined && m !== null && (typeof m !== "number" || !findMilestone(store, m))) {
    bad("/issue/milestone", "milestone", m);
  }
  const labels = issue.labels;
  if (
    labels !== undefined &&
    (!Array.isArray(labels) || !labels.every((l) => typeof l === "string" && l.trim() !== ""))
  ) {
    bad("/issue/labels", "labels", labels);
  }
  p.comments.forEach((c, i) => {
    const v = c.created_at;
    if (v !== undefined && (typeof v !== "string" || parseTimestamp(v) === undefined)) {
      out.push({
        location: `/comments/${i}/created_at`,
        resource: "IssueComment",
        field: "created_at",
        value: v,
        code: "invalid",
      });
    }
  });
  try {
    checkBodyLength(issue.body as string, "Issue");
  } catch {
    bad("/issue/body", "body", "(too long)");
  }
  return out;
}

function stamp(v: unknown, fallback: number): number {
  return typeof v === "string" ? (parseTimestamp(v) ?? fallback) : fallback;
}

function processJob(store: Store, job: ImportJob): void {
  const now = store.clock.now();
  job.updatedAt = now;
  store.version++;
  const errors = problems(store, job.payload);
  if (errors.length > 0) {
    job.status = "failed";
    job.errors = errors;
    return;
  }
  const p = job.payload.issue;
  const createdAt = stamp(p.created_at, now);
  const updatedAt = stamp(p.updated_at, now);
  const closed = p.closed === true;
  const assignee =
    typeof p.assignee === "string" ? collaboratorLogin(store, p.assignee) : undefined;
  const issue: IssueRecord = {
    id: store.nextId("issue"),
    number: nextIssueNumber(store),
    title: p.title as string,
    body: p.body as string,
    state: closed ? "closed" : "open",
    stateReason: closed ? "completed" : null,
    labels: labelIds(store, (p.labels as string[] | undefined) ?? []),
    assignees: assignee === undefined ? [] : [assignee],
    milestone: typeof p.milestone === "number" ? p.milestone : null,
    user: job.user,
    createdAt,
    updatedAt,
    closedAt: closed ? stamp(p.closed_at, updatedAt) : null,
    closedBy: closed ? job.user : null,
    comments: job.payload.comments.length,
    locked: false,
    lockReason: null,
    parentId: null,
    subIssues: [],
  };
  store.issues.push(issue);
  created(store, issue);
  for (const c of job.payload.comments) {
    const at = stamp(c.created_at, now);
    const comment: CommentRecord = {
      id: store.nextId("comment"),
      issueNumber: issue.number,
      body: c.body as string,
      user: job.user,
      createdAt: at,
      updatedAt: at,
    };
    store.comments.push(comment);
    noteComment(store, comment.id);
  }
  job.status = "imported";
  job.issueNumber = issue.number;
}
