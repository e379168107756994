import type { TargetConnection } from "../../src/adapters/registry.js";
import type { GithubSandbox } from "../../src/sandboxes/github/index.js";
import type { JiraSandbox } from "../../src/sandboxes/jira/index.js";

/** The target connection (as `createTarget` takes it) to a GitHub sandbox, without the import API. */
export function githubSandboxConnection(sandbox: GithubSandbox): TargetConnection {
  return {
    type: "github",
    tokenEnv: "GITHUB_TOKEN",
    importApi: false,
    baseUrl: sandbox.url,
    owner: sandbox.owner,
    repo: sandbox.repo,
    token: sandbox.token,
  };
}

/** The target connection (as `createTarget` takes it) to a Jira sandbox's project. */
export function jiraSandboxConnection(sandbox: JiraSandbox): TargetConnection {
  return {
    type: "jira",
    emailEnv: "JIRA_EMAIL",
    tokenEnv: "JIRA_TOKEN",
    baseUrl: sandbox.url,
    project: sandbox.projectKey,
    email: sandbox.email,
    token: sandbox.token,
    deployment: sandbox.deployment,
  };
}
