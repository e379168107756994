import { createHmac, randomUUID } from "node:crypto";
import { createWebhookQueue, type DeliveryAttempt } from "../../server-kit/webhook-queue.js";
import type { Reply } from "./context.js";
import { renderComment, renderIssue, renderUser } from "./render.js";
import { renderRepo } from "./routes-meta.js";
import type { ItemRecord, ProjectRecord } from "./graphql/projects-store.js";
import { userNodeId, type ItemChange } from "./graphql/resolvers.js";
import {
  type CommentRecord,
  findIssue,
  findUser,
  findIssueById,
  type IssueRecord,
  type Store,
  type UserRecord,
} from "./store.js";

/** Where and how the sandbox delivers webhooks (`sandbox github --webhook URL`). */
export interface GithubWebhookOptions {
  readonly url: string;
  /** Signs deliveries (`X-Hub-Signature-256`) when given. */
  readonly secret?: string | undefined;
  /** Delays before each retry of a failed delivery. @default [1000, 2000, 4000] */
  readonly retryDelaysMs?: readonly number[];
  /** Told about every attempt (tests, the command's log). */
  readonly onAttempt?: (a: DeliveryAttempt) => void;
}

/** What the pipeline knows of one successful write. */
interface WriteInfo {
  readonly method: string;
  readonly route: string;
  readonly params: Readonly<Record<string, string>>;
  readonly requestBody: unknown;
  readonly reply: Reply;
  /** The addressed issue as it was before the write (PATCH of an issue). */
  readonly before: IssueRecord | undefined;
  /** The addressed comment as it was before the write (PATCH or DELETE of a comment). */
  readonly commentBefore?: CommentRecord | undefined;
  /** The rendered milestone or label a DELETE removed. */
  readonly objectBefore?: unknown;
  readonly sender: UserRecord;
}

/** A project item a GraphQL mutation changed (`projects_v2_item`). */
export interface ProjectItemInfo {
  readonly project: ProjectRecord;
  readonly item: ItemRecord;
  readonly change: ItemChange;
  readonly sender: UserRecord;
}

export interface WebhookSender {
  afterWrite(w: WriteInfo): void;
  /**
   * A `projects_v2_item` delivery, as GitHub sends one for an organization's project only (a
   * user's projects have no webhooks): no `repository`, the `organization` instead.
   */
  projectItem(p: ProjectItemInfo): void;
  /** Resolves once every queued delivery was sent or gave up. */
  drain(): Promise<void>;
  close(): void;
}

const ISSUE = "/repos/:owner/:repo/issues/:number";
const field = (body: unknown, name: string): unknown =>
  typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;

/**
 * Sends a GitHub-shaped delivery for every change made through the API, in order, as GitHub
 * does: JSON payloads with `action`, the object, `repository` and `sender`; headers
 * `X-GitHub-Event`, `X-GitHub-Delivery`, `X-GitHub-Hook-ID`, `X-Hub-Signature-256`,
 * `User-Agent: GitHub-Hookshot/…`. A delivery answered with an error or not at all is sent again
 * with the same delivery id after each delay of `retryDelaysMs`.
 */
export function createWebhookSender(store: Store, o: GithubWebhookOptions): WebhookSender {
  const hookId = String(100_000 + Math.floor(Math.random() * 900_000));
  const queue = createWebhookQueue({
    url: o.url,
    retryDelaysMs: o.retryDelaysMs ?? [1000, 2000, 4000],
    retryable: (status) => status === "error" || status >= 300,
    onAttempt: o.onAttempt,
    headers: (d) => {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/sandbox",
        "x-github-event": d.event,
        "x-github-delivery": d.id,
        "x-github-hook-id": hookId,
        ...(d.event === "projects_v2_item"
          ? {
              "x-github-hook-installation-target-type": "organization",
              "x-github-hook-installation-target-id": String(store.owner.id),
            }
          : {
              "x-github-hook-installation-target-type": "repository",
              "x-github-hook-installation-target-id": String(store.repoId),
            }),
      };
      if (o.secret !== undefined)
        headers["x-hub-signature-256"] =
          `sha256=${createHmac("sha256", o.secret).update(d.body).digest("hex")}`;
      return headers;
    },
  });
  const enqueue = (event: string, payload: Record<string, unknown>, sender: UserRecord): void => {
    const body = JSON.stringify({
      ...payload,
      repository: renderRepo(store, "admin"),
      sender: renderUser(store, sender),
    });
    queue.push({ event, id: randomUUID(), body });
  };
  const issueBody = (n: number | undefined): unknown => {
    const issue = n === undefined ? undefined : findIssue(store, n);
    return issue === undefined ? undefined : renderIssue(store, issue);
  };

  return {
    afterWrite(w) {
      const n = Number(w.params.number);
      const { method, route, reply } = w;
      const r = (event: string, payload: Record<string, unknown>): void => {
        enqueue(event, payload, w.sender);
      };
      if (route === "/repos/:owner/:repo/issues" && method === "POST") {
        r("issues", { action: "opened", issue: reply.body });
      } else if (route === ISSUE && method === "PATCH") {
        r("issues", { action: issueAction(w), issue: reply.body, ...issueChanges(w) });
      } else if (route === `${ISSUE}/comments` && method === "POST") {
        r("issue_comment", { action: "created", issue: issueBody(n), comment: reply.body });
      } else if (route === "/repos/:owner/:repo/issues/comments/:id" && method === "PATCH") {
        const from = w.commentBefore?.body;
        r("issue_comment", {
          action: "edited",
          issue: issueBody(w.commentBefore?.issueNumber),
          comment: reply.body,
          changes:
            from === undefined || from === field(reply.body, "body") ? {} : { body: { from } },
        });
      } else if (route === "/repos/:owner/:repo/issues/comments/:id" && method === "DELETE") {
        const c = w.commentBefore;
        if (c !== undefined)
          r("issue_comment", {
            action: "deleted",
            issue: issueBody(c.issueNumber),
            comment: renderComment(store, c),
          });
      } else if (route.startsWith(`${ISSUE}/sub_issue`) && method !== "PATCH") {
        const child = findIssueById(store, Number(field(w.requestBody, "sub_issue_id")));
        r("sub_issues", {
          action: method === "DELETE" ? "sub_issue_removed" : "sub_issue_added",
          parent_issue_id: findIssue(store, n)?.id,
          parent_issue: issueBody(n),
          sub_issue_id: child?.id,
          sub_issue: child === undefined ? undefined : renderIssue(store, child),
        });
      } else if (route.startsWith(`${ISSUE}/labels`) || route.startsWith(`${ISSUE}/assignees`)) {
        const kind = route.includes("/labels") ? "label" : "assign";
        const action =
          method === "DELETE"
            ? kind === "label"
              ? "unlabeled"
              : "unassigned"
            : kind === "label"
              ? "labeled"
              : "assigned";
        r("issues", { action, issue: issueBody(n) });
      } else if (route.startsWith("/repos/:owner/:repo/milestones")) {
        r("milestone", {
          action: method === "POST" ? "created" : method === "DELETE" ? "deleted" : "edited",
          milestone: reply.body ?? w.objectBefore,
        });
      } else if (route.startsWith("/repos/:owner/:repo/labels")) {
        r("label", {
          action: method === "POST" ? "created" : method === "DELETE" ? "deleted" : "edited",
          label: reply.body ?? w.objectBefore,
        });
      }
    },
    projectItem({ project, item, change, sender }) {
      const owner =
        project.owner.toLowerCase() === store.owner.login.toLowerCase()
          ? store.owner
          : findUser(store, project.owner);
      if (owner?.type !== "Organization") return;
      const at = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
      const body = JSON.stringify({
        action: change.action,
        projects_v2_item: {
          id: item.databaseId,
          node_id: item.id,
          project_node_id: project.id,
          content_node_id: item.contentId,
          content_type: "Issue",
          creator: renderUser(store, sender),
          created_at: at(item.createdAt),
          updated_at: at(item.updatedAt),
          archived_at: null,
        },
        ...(change.field === undefined
          ? {}
          : {
              changes: {
                field_value: { field_node_id: change.field.id, field_type: change.field.type },
              },
            }),
        organization: {
          login: owner.login,
          id: owner.id,
          node_id: userNodeId(owner),
        },
        sender: renderUser(store, sender),
      });
      queue.push({ event: "projects_v2_item", id: randomUUID(), body });
    },
    drain: () => queue.drain(),
    close: () => {
      queue.close();
    },
  };
}

function issueAction(w: WriteInfo): string {
  const state = field(w.requestBody, "state");
  if (state === "closed" && w.before?.state === "open") return "closed";
  if (state === "open" && w.before?.state === "closed") return "reopened";
  return "edited";
}

/** `changes` of an `edited` delivery: the previous title and body where they changed. */
function issueChanges(w: WriteInfo): { changes?: Record<string, { from: unknown }> } {
  const b = w.before;
  if (b === undefined) return {};
  const changes: Record<string, { from: unknown }> = {};
  const title = field(w.requestBody, "title");
  const body = field(w.requestBody, "body");
  if (typeof title === "string" && title !== b.title) changes.title = { from: b.title };
  if (typeof body === "string" && body !== b.body) changes.body = { from: b.body };
  return Object.keys(changes).length === 0 ? {} : { changes };
}
