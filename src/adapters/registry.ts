/**
 * The one place that knows every adapter: builds the trackers a job needs from its resolved
 * configuration. (The only barrel of `adapters/`, per style.md R5.)
 */
import type { Logger } from "../core/logger.js";
import type { GithubConnection, JiraConnection } from "./connection.js";
import type { RequestGate } from "../core/request-gate.js";
import type { Tracker } from "../core/tracker.js";
import type { BoardSpec } from "../core/board.js";
import { createGithubTracker, type GithubTracker } from "./github/index.js";
import { createJiraTracker } from "./jira/index.js";
import { createTinypmTracker, type TinypmTracker } from "./tinypm/index.js";

export type { TinypmTracker } from "./tinypm/index.js";
export type { GithubTracker } from "./github/index.js";

interface TinypmConnection {
  readonly baseUrl: string;
  readonly token: string;
  readonly projectId: number | string;
  readonly concurrency?: number | undefined;
  readonly timeoutMs?: number | undefined;
  readonly logger?: Logger | undefined;
  /** The token's request gate (limits, retries, waits); absent = each request sent once. */
  readonly gate?: RequestGate | undefined;
}

/**
 * A target as the resolved config describes it (`adapters/connection.ts`, the type the config's
 * targets are made of, taken as is: extra keys such as limits are the gate's, not the adapter's),
 * plus what the registry hands the adapter: the token's request gate and the logger.
 */
export type TargetConnection = (GithubConnection | JiraConnection) & {
  /** The token's request gate (limits, retries, waits); absent = each request sent once. */
  readonly gate?: RequestGate | undefined;
  readonly logger?: Logger | undefined;
  /** The mapping's GitHub Project (v2) board, used with `project` of a GitHub target. */
  readonly board?: BoardSpec | undefined;
};

export function createTinypm(c: TinypmConnection): TinypmTracker {
  return createTinypmTracker({
    baseUrl: c.baseUrl,
    token: c.token,
    projectId: c.projectId,
    concurrency: c.concurrency,
    timeoutMs: c.timeoutMs,
    logger: c.logger,
    gate: c.gate,
  });
}

export function createTarget(c: TargetConnection): Tracker {
  if (c.type === "github") return createGithub(c);
  return createJiraTracker({
    baseUrl: c.baseUrl,
    email: c.email ?? "",
    token: c.token,
    projectKey: c.project,
    emailEnv: c.emailEnv,
    tokenEnv: c.tokenEnv,
    boardId: c.boardId,
    storyPointsField: c.storyPointsField,
    logger: c.logger,
    gate: c.gate,
    deployment: c.deployment,
    caFile: c.caFile,
  });
}

function createGithub(
  c: GithubConnection & Pick<TargetConnection, "gate" | "logger" | "board">,
): GithubTracker {
  return createGithubTracker({
    baseUrl: c.baseUrl,
    token: c.token,
    owner: c.owner,
    repo: c.repo,
    tokenEnv: c.tokenEnv,
    importApi: c.importApi,
    project: c.project,
    board: c.board,
    logger: c.logger,
    gate: c.gate,
  });
}

export { exportProject, type TinypmArchive } from "./tinypm/archive.js";
export { normalizeArchiveIds } from "./tinypm/archive-ids.js";
