import { createHash } from "node:crypto";

/**
 * The sandbox's Projects (v2): projects of the repository's owner (or any sandbox user), their
 * custom fields and items. Node ids carry GitHub's prefixes (`PVT_`, `PVTF_`, `PVTSSF_`,
 * `PVTIF_`, `PVTI_`); option and iteration ids are 8 hex digits, as on GitHub.
 */

export type OptionColor =
  "BLUE" | "GRAY" | "GREEN" | "ORANGE" | "PINK" | "PURPLE" | "RED" | "YELLOW";

export interface OptionRecord {
  readonly id: string;
  name: string;
  color: OptionColor;
  description: string;
}

export interface IterationRecord {
  readonly id: string;
  readonly title: string;
  /** `YYYY-MM-DD`. */
  readonly startDate: string;
  readonly duration: number;
}

export type FieldRecord =
  | { readonly kind: "builtin"; readonly id: string; name: string; readonly dataType: string }
  | {
      readonly kind: "plain";
      readonly id: string;
      name: string;
      readonly dataType: "TEXT" | "NUMBER" | "DATE";
    }
  | { readonly kind: "select"; readonly id: string; name: string; options: OptionRecord[] }
  | {
      readonly kind: "iteration";
      readonly id: string;
      name: string;
      duration: number;
      startDay: number;
      iterations: IterationRecord[];
    };

/** A value as stored: by field id. */
export type ValueRecord =
  | { readonly text: string }
  | { readonly number: number }
  | { readonly date: string }
  | { readonly optionId: string }
  | { readonly iterationId: string };

export interface ItemRecord {
  readonly id: string;
  readonly databaseId: number;
  /** The node id (`I_…`). */
  readonly contentId: string;
  readonly values: Map<string, ValueRecord>;
  readonly createdAt: number;
  updatedAt: number;
  archived: boolean;
}

export interface ProjectRecord {
  readonly id: string;
  readonly databaseId: number;
  readonly number: number;
  /** The owner's login. */
  readonly owner: string;
  title: string;
  closed: boolean;
  readonly fields: FieldRecord[];
  readonly items: ItemRecord[];
}

export interface ProjectsStore {
  readonly projects: ProjectRecord[];
  /** A fresh 8-hex-digit option or iteration id (never reused). */
  shortId(): string;
  nextDatabaseId(): number;
  reset(): void;
}

const BUILTIN_FIELDS = [
  ["Title", "TITLE"],
  ["Assignees", "ASSIGNEES"],
  ["Labels", "LABELS"],
  ["Repository", "REPOSITORY"],
  ["Milestone", "MILESTONE"],
] as const;

export function createProjectsStore(): ProjectsStore {
  let seq = 0;
  const store: ProjectsStore = {
    projects: [],
    shortId: () => createHash("sha1").update(`sandbox-${++seq}`).digest("hex").slice(0, 8),
    nextDatabaseId: () => 9_000_000 + ++seq,
    reset() {
      store.projects.length = 0;
      seq = 0;
    },
  };
  return store;
}

/** A new project as GitHub makes it: the built-in fields and a Status with Todo / In Progress / Done. */
export function newProject(store: ProjectsStore, owner: string, title: string): ProjectRecord {
  const number =
    store.projects.filter((p) => p.owner.toLowerCase() === owner.toLowerCase()).length + 1;
  const databaseId = store.nextDatabaseId();
  const project: ProjectRecord = {
    id: `PVT_${nodeSuffix(databaseId)}`,
    databaseId,
    number,
    owner,
    title,
    closed: false,
    fields: BUILTIN_FIELDS.map(([name, dataType]) => ({
      kind: "builtin" as const,
      id: `PVTF_${nodeSuffix(store.nextDatabaseId())}`,
      name,
      dataType,
    })),
    items: [],
  };
  project.fields.splice(1, 0, {
    kind: "select",
    id: `PVTSSF_${nodeSuffix(store.nextDatabaseId())}`,
    name: "Status",
    options: [
      {
        id: store.shortId(),
        name: "Todo",
        color: "GREEN",
        description: "This item hasn't been started",
      },
      {
        id: store.shortId(),
        name: "In Progress",
        color: "YELLOW",
        description: "This is actively being worked on",
      },
      {
        id: store.shortId(),
        name: "Done",
        color: "PURPLE",
        description: "This has been completed",
      },
    ],
  });
  store.projects.push(project);
  return project;
}

/** A stable base-64-ish suffix for a node id. */
export function nodeSuffix(n: number): string {
  return Buffer.from(`sbx:${n}`).toString("base64url");
}

/** The day after `start` + `days` - 1, as `YYYY-MM-DD`: the iteration's last day + 1. */
export function addDays(start: string, days: number): string {
  const t = Date.parse(`${start}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}
