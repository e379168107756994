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
  project: z
    .union([
      z.strictObject({
        owner: z.string().min(1).describe("The user or organization owning the project."),
        number: z.int().positive().describe("The project's number (from its URL)."),
      }),
      z.strictObject({
        owner: z.string().min(1).describe("The user or organization owning the project."),
        title: z.string().min(1).describe("The project's title: found, or created when missing."),
      }),
    ])
    .optional()
    .describe(
      "A GitHub Project (v2) showing the job's issues as a board: Status, Iteration, Estimate and Priority fields (named in the mapping's `project:` section; missing ones are created).",
    ),
});

/** `targets.github.project`. */
export type GithubProjectRef = NonNullable<z.output<typeof GithubConnectionSchema>["project"]>;

export const JiraConnectionSchema = z.strictObject({
  type: z.literal("jira"),
  baseUrl: z
    .url()
    .describe(
      "Jira site: Cloud https://acme.atlassian.net, or a Data Center site with its context path (https://jira.example.com/jira).",
    ),
  deployment: z
    .enum(["cloud", "datacenter"])
    .default("cloud")
    .describe(
      "cloud (REST v3, ADF, email + API token), or datacenter (Jira Data Center: REST v2, wiki markup, users by name, a personal access token).",
    ),
  project: z.string().min(1).describe("Jira project key."),
  emailEnv: envName
    .optional()
    .describe(
      "Name of the environment variable holding the Jira account email (Cloud; not used on Data Center).",
    ),
  tokenEnv: envName.describe(
    "Name of the environment variable holding the Jira API token (Cloud) or personal access token (Data Center, sent as Bearer).",
  ),
  caFile: z
    .string()
    .min(1)
    .optional()
    .describe(
      "PEM file of the CA that signed the site's TLS certificate (self-signed Data Center sites), relative to this config file.",
    ),
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
export type JiraConnection = Omit<z.output<typeof JiraConnectionSchema>, "deployment"> & {
  /** @default "cloud" */
  readonly deployment?: "cloud" | "datacenter" | undefined;
  readonly token: string;
  readonly email?: string | undefined;
};
