/**
 * `sandbox github|jira --users FILE`: the sandbox's people from a YAML or JSON file, each with
 * what the real service would show of them (see docs/sandboxes.md, Users).
 */
import { z } from "zod";
import { parseYamlWith, readText } from "../mapping/load.js";
import type { GithubSandboxUser } from "../sandboxes/github/index.js";
import type { JiraSandboxUser } from "../sandboxes/jira/index.js";

const login = z.string().min(1).describe("The user's login.");

const githubUser = z.union([
  login,
  z.strictObject({
    login,
    name: z.string().min(1).optional().describe("The profile's display name."),
    publicEmail: z
      .string()
      .min(1)
      .optional()
      .describe("The public profile email; without it GitHub shows `email: null`."),
    collaborator: z
      .boolean()
      .optional()
      .describe(
        "Push access to the repository (only collaborators can be assigned). @default true",
      ),
  }),
]);

const jiraUser = z.union([
  login,
  z.strictObject({
    login,
    accountId: z.string().min(1).optional().describe("@default acc-<login>"),
    displayName: z.string().min(1).optional(),
    email: z.string().min(1).optional().describe("@default <login>@example.com"),
    emailVisible: z
      .boolean()
      .optional()
      .describe("Whether the API shows the email. @default every second user hides it"),
    assignable: z.boolean().optional().describe("May be assigned issues. @default true"),
    active: z.boolean().optional().describe("@default true"),
  }),
]);

const fileOf = <T extends z.ZodType>(entry: T) =>
  z.strictObject({ users: z.array(entry).min(1).describe("The sandbox's users, in order.") });

/** Reads a GitHub sandbox users file. @throws MappingError naming the file and every problem */
export function loadGithubUsers(file: string): (string | GithubSandboxUser)[] {
  const text = readText(file, "Sandbox users file");
  return parseYamlWith({ text, file, schema: fileOf(githubUser), what: "Sandbox users file" })
    .users;
}

/** Reads a Jira sandbox users file. @throws MappingError naming the file and every problem */
export function loadJiraUsers(file: string): (string | JiraSandboxUser)[] {
  const text = readText(file, "Sandbox users file");
  return parseYamlWith({ text, file, schema: fileOf(jiraUser), what: "Sandbox users file" }).users;
}
