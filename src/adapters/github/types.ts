import type { BoardSpec } from "../../core/board.js";
import type { GithubProjectRef } from "../connection.js";
import type { Comment, CommentDraft, ItemRef, WorkItem, WorkItemDraft } from "../../core/model.js";
import type { CallOptions, Checkpoint, Tracker } from "../../core/tracker.js";
import type { Logger } from "../../core/logger.js";
import type { RequestGate } from "../../core/request-gate.js";
import type { RateLimitSnapshot } from "./rate-limit.js";
import type { LabelSpec } from "./repo-meta.js";

export interface GithubTrackerOptions {
  /** `https://api.github.com`, or `https://ghes.example.com/api/v3` for GitHub Enterprise Server. */
  readonly baseUrl: string;
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  /** The environment variable the token came from, named in authentication errors. */
  readonly tokenEnv?: string | undefined;
  /**
   * The request gate every HTTP request goes through: GitHub's limits (80 content-creating
   * writes per minute, 500 per hour, completion-anchored), `Retry-After`/reset waits, retries,
   * timeouts, cancellation. The CLI passes the token's shared gate. @default ungated
   */
  readonly gate?: RequestGate | undefined;
  /** Testing and benchmark aid: the import API's polling runs N times faster (a scaled sandbox). */
  readonly timeScale?: number | undefined;
  /** Create through the issue import API (admin token; one call per issue with its comments). */
  readonly importApi?: boolean | undefined;
  /** The repository's labels with colours, ensured once before the first create. */
  readonly labels?: readonly LabelSpec[] | undefined;
  readonly logger?: Logger | undefined;
  /** A GitHub Project (v2) showing the issues as a board (`targets.github.project`). */
  readonly project?: GithubProjectRef | undefined;
  /** The board's fields and value tables (the mapping's `project:` section); needed with `project`. */
  readonly board?: BoardSpec | undefined;
  /** Real milliseconds before a request is abandoned (default 30,000). */
  readonly timeoutMs?: number | undefined;
  readonly userAgent?: string | undefined;
  /** Transport seam (default: `fetch` over node:http, node-http-fetch.ts). */
  readonly fetch?: typeof fetch | undefined;
}

export interface GithubRateLimitState {
  readonly core: RateLimitSnapshot;
}

/** The Tracker plus GitHub's own operations. */
export interface GithubTracker extends Tracker {
  /** Set past the adapter's own writes when nothing else changed the repository (feed-prime.ts). */
  checkpointAfterWrites(
    opts?: CallOptions & { readonly onNone?: ((why: string) => void) | undefined },
  ): Promise<Checkpoint | undefined>;
  ensureLabels(
    labels: readonly LabelSpec[],
    opts?: CallOptions,
  ): Promise<{ created: string[]; updated: string[] }>;
  /** The repository's labels with colours and descriptions. */
  listLabels(opts?: CallOptions): Promise<LabelSpec[]>;
  /** Attaches `child` (an issue number) under `parent`, by the child's id. */
  addSubIssue(parent: string, child: string, opts?: CallOptions): Promise<void>;
  removeSubIssue(parent: string, child: string, opts?: CallOptions): Promise<void>;
  listSubIssues(parent: string, opts?: CallOptions): Promise<WorkItem[]>;
  listComments(item: ItemRef, opts?: CallOptions): Promise<Comment[]>;
  updateComment(commentId: string, body: string, opts?: CallOptions): Promise<Comment>;
  /** The comment a rerun already wrote for this draft (same marker and content key). */
  findComment(item: ItemRef, draft: CommentDraft, opts?: CallOptions): Promise<Comment | undefined>;
  /** One import call with the issue's comments (admin token). */
  importIssue(
    draft: WorkItemDraft,
    comments: readonly CommentDraft[],
    opts?: CallOptions,
  ): Promise<WorkItem>;
  rateLimitState(): GithubRateLimitState;
}
