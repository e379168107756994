import { z } from "zod";

/**
 * Where and as whom each target is reached: the connection part of a config target, declared
 * once here so that the config (`config/schema.ts`, which adds limits, timeouts and webhooks) and
 * the adapters' registry (`adapters/registry.ts`, which adds the resolved secrets) use one type.
 */

/** The name of an environment variable (secrets are only ever read from the environment). */
export const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name such as TINYPM_TOKEN");

export const GithubConnectionSchema = z.strictObject({
  type: z.literal("github"),
  baseUrl: z
    .url()
    .default("https://api.github.com")
    .describe("GitHub REST API root (GHES: https://host/api/v3)."),
  owner: z.string().min(1).describe("Repository owner (user or organisation)."),
  repo: z.string().min(1).describe("Repository name."),
  tokenEnv: envName.describe("Name of the environment variable holding the GitHub token."),
  importApi: z
    .boolean()
    .default(false)
    .describe("Use GitHub's issue import API for migrations (needs admin)."),
});

export const JiraConnectionSchema = z.strictObject({
  type: z.literal("jira"),
  baseUrl: z.url().describe("Jira Cloud site (e.g. https://acme.atlassian.net)."),
  project: z.string().min(1).describe("Jira project key."),
  emailEnv: envName.describe("Name of the environment variable holding the Jira account email."),
  tokenEnv: envName.describe("Name of the environment variable holding the Jira API token."),
  boardId: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Scrum board for sprints (default: the project's first)."),
  storyPointsField: z
    .string()
    .optional()
    .describe("Story points field id (default: found at run time)."),
});

/** A GitHub target as the config describes it (defaults applied), with its resolved token. */
export type GithubConnection = z.output<typeof GithubConnectionSchema> & {
  readonly token: string;
};

/** A Jira target as the config describes it, with its resolved email and token. */
export type JiraConnection = z.output<typeof JiraConnectionSchema> & {
  readonly token: string;
  readonly email?: string | undefined;
};
