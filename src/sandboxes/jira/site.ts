import { accountsFor, DEFAULT_USERS, type JiraSandboxUser } from "./users.js";
import { DEFAULT_WORKFLOW, validateWorkflow, type WorkflowSpec } from "./workflow.js";

/** A user account of the site. Jira Cloud identifies users by `accountId` only (GDPR). */
export interface Account {
  readonly accountId: string;
  /** The username Jira Data Center knows the user by (the login); Cloud never shows it. */
  readonly name: string;
  /** Data Center's stable user key (`JIRAUSER10100`), which survives a rename. */
  readonly key: string;
  readonly displayName: string;
  /** The account's address; the API shows it only when `emailVisible` (see users.ts). */
  readonly emailAddress: string | undefined;
  /** Whether the user's profile lets API callers see the address. */
  readonly emailVisible: boolean;
  /** Whether the user may be assigned issues in the project (its "Assignable user" role). */
  readonly assignable: boolean;
  readonly active: boolean;
}

export interface IssueTypeDef {
  readonly id: string;
  readonly name: string;
  readonly subtask: boolean;
  /** Epic 1, standard 0, sub-task −1. */
  readonly hierarchyLevel: number;
  readonly description: string;
}

export interface NamedDef {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

/** The static shape of the sandbox site: users, one project, its types, fields and board. */
export interface Site {
  readonly admin: Account;
  readonly users: readonly Account[];
  readonly project: { readonly id: string; readonly key: string; readonly name: string };
  readonly issueTypes: readonly IssueTypeDef[];
  readonly priorities: readonly NamedDef[];
  readonly defaultPriorityId: string;
  readonly resolutions: readonly NamedDef[];
  readonly workflow: WorkflowSpec;
  readonly storyPointsFieldId: string;
  readonly sprintFieldId: string;
  /** A team-managed style "Story point estimate" field that is not on this project's screens. */
  readonly otherEstimateFieldId: string;
  readonly board: { readonly id: number; readonly name: string };
  /** Data Center 11's bound on `/search` paging: `startAt + maxResults` may not pass it. */
  readonly maxResultWindow: number;
}

export interface SiteOptions {
  readonly email: string;
  readonly projectKey?: string | undefined;
  readonly storyPointsFieldId?: string | undefined;
  readonly users?: readonly (string | JiraSandboxUser)[] | undefined;
  readonly workflow?: WorkflowSpec | undefined;
  /** The priority an issue created without one gets (its scheme's default). @default "Medium" */
  readonly defaultPriority?: string | undefined;
  /** @default 10000 (OpenSearch's `index.max_result_window`) */
  readonly maxResultWindow?: number | undefined;
}

const PRIORITIES: readonly string[] = ["Highest", "High", "Medium", "Low", "Lowest"];

/** Builds the site; throws an Error naming the problem when the workflow or keys are invalid. */
export function createSite(options: SiteOptions): Site {
  const workflow = options.workflow ?? DEFAULT_WORKFLOW;
  const problems = validateWorkflow(workflow);
  if (problems.length > 0) throw new Error(`invalid Jira sandbox workflow: ${problems.join("; ")}`);
  const key = options.projectKey ?? "WID";
  if (!/^[A-Z][A-Z0-9_]{1,9}$/.test(key)) {
    throw new Error(`project key "${key}" is invalid: use 2–10 upper-case letters and digits`);
  }
  const storyPointsFieldId = options.storyPointsFieldId ?? "customfield_10016";
  if (!/^customfield_\d+$/.test(storyPointsFieldId)) {
    throw new Error(
      `story points field id "${storyPointsFieldId}" must look like customfield_10016`,
    );
  }
  const defaultPriority = PRIORITIES.indexOf(options.defaultPriority ?? "Medium");
  if (defaultPriority < 0) {
    throw new Error(
      `default priority "${options.defaultPriority ?? ""}" is not one of ${PRIORITIES.join(", ")}`,
    );
  }
  return {
    admin: {
      accountId: "acc-sandbox",
      name: adminName(options.email),
      key: "JIRAUSER10000",
      displayName: "Sandbox Admin",
      emailAddress: options.email,
      emailVisible: true,
      assignable: true,
      active: true,
    },
    users: accountsFor(options.users ?? DEFAULT_USERS),
    project: { id: "10000", key, name: key === "WID" ? "Widgets" : key },
    issueTypes: [
      {
        id: "10000",
        name: "Epic",
        subtask: false,
        hierarchyLevel: 1,
        description: "A big user story.",
      },
      {
        id: "10001",
        name: "Story",
        subtask: false,
        hierarchyLevel: 0,
        description: "A user story.",
      },
      {
        id: "10002",
        name: "Task",
        subtask: false,
        hierarchyLevel: 0,
        description: "A small piece of work.",
      },
      {
        id: "10003",
        name: "Sub-task",
        subtask: true,
        hierarchyLevel: -1,
        description: "A small piece of work that's part of a larger task.",
      },
      {
        id: "10004",
        name: "Bug",
        subtask: false,
        hierarchyLevel: 0,
        description: "A problem or error.",
      },
    ],
    priorities: PRIORITIES.map((name, i) => ({
      id: String(i + 1),
      name,
      description: `${name} priority.`,
    })),
    defaultPriorityId: String(defaultPriority + 1),
    maxResultWindow: options.maxResultWindow ?? 10_000,
    resolutions: [
      { id: "10000", name: "Done", description: "Work has been completed on this issue." },
      { id: "10001", name: "Won't Do", description: "This issue won't be actioned." },
      {
        id: "10002",
        name: "Duplicate",
        description: "The problem is a duplicate of an existing issue.",
      },
      { id: "10003", name: "Cannot Reproduce", description: "This issue couldn't be reproduced." },
    ],
    workflow,
    storyPointsFieldId,
    sprintFieldId:
      storyPointsFieldId === "customfield_10020" ? "customfield_10021" : "customfield_10020",
    otherEstimateFieldId:
      storyPointsFieldId === "customfield_10026" ? "customfield_10027" : "customfield_10026",
    board: { id: 1, name: `${key} board` },
  };
}

/** The admin's Data Center username: the local part of its email (`sandbox`). */
function adminName(email: string): string {
  const local = email.split("@")[0] ?? "";
  return /^[A-Za-z0-9._-]+$/.test(local) ? local : "admin";
}

/** Finds an account by Data Center username (case-insensitive, as Jira compares them). */
export function findAccountByName(site: Site, name: string): Account | undefined {
  const lower = name.toLowerCase();
  return [site.admin, ...site.users].find((a) => a.name.toLowerCase() === lower);
}

/** Finds an account by Data Center user key. */
export function findAccountByKey(site: Site, key: string): Account | undefined {
  return [site.admin, ...site.users].find((a) => a.key === key);
}

/** Finds an account by accountId among the users and the admin. */
export function findAccount(site: Site, accountId: string): Account | undefined {
  if (accountId === site.admin.accountId) return site.admin;
  return site.users.find((u) => u.accountId === accountId);
}

/** Finds a definition by id or case-insensitive name. */
export function findNamed<T extends { readonly id: string; readonly name: string }>(
  list: readonly T[],
  ref: { id?: unknown; name?: unknown },
): T | undefined {
  if (typeof ref.id === "string" || typeof ref.id === "number") {
    return list.find((d) => d.id === String(ref.id));
  }
  if (typeof ref.name === "string") {
    const lower = ref.name.toLowerCase();
    return list.find((d) => d.name.toLowerCase() === lower);
  }
  return undefined;
}
