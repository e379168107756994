import type { TokenAccess } from "../access.js";
import { isoSeconds } from "../clock.js";
import { nodeId } from "../render.js";
import {
  findIssueById,
  findUser,
  removeIssue,
  type IssueRecord,
  type Store,
  type UserRecord,
} from "../store.js";
import { GqlError, notFoundNode } from "./errors.js";
import {
  addDays,
  newProject,
  nodeSuffix,
  type FieldRecord,
  type ItemRecord,
  type IterationRecord,
  type OptionColor,
  type OptionRecord,
  type ProjectRecord,
  type ProjectsStore,
  type ValueRecord,
} from "./projects-store.js";

/**
 * Resolvers of the Projects (v2) subset, as plain objects with function fields (graphql-js's
 * default field resolver calls them with the field's arguments); every object names its type in
 * `__typename` so that interfaces and unions resolve. Pure over the two stores, except for the
 * clock (completed iterations, `updatedAt`).
 */
/** A field's type as a `projects_v2_item` delivery's `changes.field_value.field_type` names it. */
function webhookFieldType(f: FieldRecord): string {
  if (f.kind === "select") return "single_select";
  if (f.kind === "iteration") return "iteration";
  return f.dataType.toLowerCase();
}

/** What a mutation did to a project item, as a `projects_v2_item` delivery says it. */
export interface ItemChange {
  readonly action: "created" | "edited" | "deleted";
  /** `edited`: the field whose value was set or cleared (none for a rewrite's clearing). */
  readonly field?: { readonly id: string; readonly type: string } | undefined;
}

export interface GqlWorld {
  readonly store: Store;
  readonly projects: ProjectsStore;
  /** Called after a mutation changed an item (webhooks, stats). */
  readonly changed?: (project: ProjectRecord, item: ItemRecord, change: ItemChange) => void;
  /** Who asks: `deleteIssue` is for repository admins only. */
  readonly caller?:
    | {
        readonly login: string;
        readonly access: TokenAccess;
        /** A fine-grained token: a user's (not an organization's) projects are out of its reach. */
        readonly fineGrained?: boolean;
      }
    | undefined;
}

type Obj = Record<string, unknown>;
interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

const PAGE_MAX = 100;

/** GitHub's connection rules: `first` or `last`, 1–100, cursors opaque. */
export function page(all: readonly unknown[], args: PageArgs, what: string): Obj {
  const first = args.first ?? undefined;
  const last = args.last ?? undefined;
  if (first === undefined && last === undefined)
    throw new GqlError(
      "MISSING_PAGINATION_BOUNDARIES",
      `You must provide a \`first\` or \`last\` value to properly paginate the \`${what}\` connection.`,
    );
  const n = first ?? last ?? 0;
  if (n > PAGE_MAX || n < 0)
    throw new GqlError(
      "EXCESSIVE_PAGINATION",
      `Requesting ${n} records on the \`${what}\` connection exceeds the \`${first === undefined ? "last" : "first"}\` limit of ${PAGE_MAX} records.`,
    );
  let start = args.after ? decodeCursor(args.after) + 1 : 0;
  let end = args.before ? decodeCursor(args.before) : all.length;
  if (first !== undefined) end = Math.min(end, start + first);
  else start = Math.max(start, end - n);
  const slice = all.slice(start, end);
  return {
    nodes: slice,
    totalCount: all.length,
    pageInfo: {
      hasNextPage: end < all.length,
      hasPreviousPage: start > 0,
      startCursor: slice.length === 0 ? null : encodeCursor(start),
      endCursor: slice.length === 0 ? null : encodeCursor(end - 1),
    },
  };
}

const encodeCursor = (i: number): string => Buffer.from(`cursor:v2:${i}`).toString("base64");
function decodeCursor(c: string): number {
  const m = /^cursor:v2:(\d+)$/.exec(Buffer.from(c, "base64").toString("utf8"));
  if (m?.[1] === undefined)
    throw new GqlError("UNPROCESSABLE", `\`${c}\` does not appear to be a valid cursor.`);
  return Number(m[1]);
}

/** Node ids as the REST answers give them (`node_id`), so REST and GraphQL agree. */
export const userNodeId = (u: UserRecord): string => nodeId(u.type === "User" ? "U" : "O", u.id);
export const issueNodeId = (i: IssueRecord): string => nodeId("I", i.id);
const repoNodeId = (store: Store): string => `R_kgDO${store.repoId}`;

export function createRoot(w: GqlWorld): { query: Obj; mutation: Obj } {
  const today = (): string => isoSeconds(w.store.clock.now()).slice(0, 10);

  // GitHub's fine-grained tokens have a Projects permission for organizations only.
  const unreachable = (u: UserRecord): boolean =>
    w.caller?.fineGrained === true && u.type === "User";
  const ownerView = (u: UserRecord): Obj => ({
    __typename: u.type,
    id: userNodeId(u),
    login: u.login,
    name: u.name ?? null,
    databaseId: u.id,
    url: `https://github.com/${u.login}`,
    repository: ({ name }: { name: string }) =>
      u.login.toLowerCase() === w.store.owner.login.toLowerCase() &&
      name.toLowerCase() === w.store.repoName.toLowerCase()
        ? repoView()
        : null,
    projectV2: ({ number }: { number: number }) => {
      const p = unreachable(u)
        ? undefined
        : w.projects.projects.find(
            (x) => x.owner.toLowerCase() === u.login.toLowerCase() && x.number === number,
          );
      if (p === undefined)
        throw new GqlError(
          "NOT_FOUND",
          `Could not resolve to a ProjectV2 with the number ${number}.`,
        );
      return projectView(p);
    },
    projectsV2: (args: PageArgs & { query?: string | null }) => {
      const q = (args.query ?? "").toLowerCase();
      const mine = w.projects.projects.filter(
        (x) =>
          !unreachable(u) &&
          x.owner.toLowerCase() === u.login.toLowerCase() &&
          x.title.toLowerCase().includes(q),
      );
      const conn = page(mine, args, "projectsV2");
      return { ...conn, nodes: (conn.nodes as ProjectRecord[]).map(projectView) };
    },
  });

  const repoView = (): Obj => ({
    __typename: "Repository",
    id: repoNodeId(w.store),
    name: w.store.repoName,
    nameWithOwner: `${w.store.owner.login}/${w.store.repoName}`,
    owner: () => ownerView(w.store.owner),
    issue: ({ number }: { number: number }) => {
      const i = w.store.issues.find((x) => x.number === number);
      if (i === undefined)
        throw new GqlError(
          "NOT_FOUND",
          `Could not resolve to an Issue with the number of ${number}.`,
        );
      return issueView(i);
    },
    // The sandbox has issues only: a number that is no issue resolves to nothing, as on GitHub.
    issueOrPullRequest: ({ number }: { number: number }) => {
      const i = w.store.issues.find((x) => x.number === number);
      if (i === undefined)
        throw new GqlError(
          "NOT_FOUND",
          `Could not resolve to an issue or pull request with the number of ${number}.`,
        );
      return issueView(i);
    },
  });

  const issueView = (i: IssueRecord): Obj => ({
    __typename: "Issue",
    id: issueNodeId(i),
    number: i.number,
    title: i.title,
    state: i.state === "open" ? "OPEN" : "CLOSED",
    url: `https://github.com/${w.store.owner.login}/${w.store.repoName}/issues/${i.number}`,
    databaseId: i.id,
    repository: repoView,
    createdAt: isoSeconds(i.createdAt),
    author: () => {
      const u = findUser(w.store, i.user);
      return u === undefined ? null : ownerView(u);
    },
    closed: i.state === "closed",
    closedAt: i.closedAt === null ? null : isoSeconds(i.closedAt),
    milestone: () => {
      const m = w.store.milestones.find((x) => x.number === i.milestone);
      return m === undefined
        ? null
        : {
            __typename: "Milestone",
            id: nodeId("MI", m.id),
            number: m.number,
            title: m.title,
            description: m.description,
            state: m.state === "open" ? "OPEN" : "CLOSED",
            closed: m.state === "closed",
            closedAt: m.closedAt === null ? null : isoSeconds(m.closedAt),
            dueOn: m.dueOn === null ? null : isoSeconds(m.dueOn),
          };
    },
    assignees: (args: PageArgs) => {
      const users = i.assignees.flatMap((login) => {
        const u = findUser(w.store, login);
        return u === undefined ? [] : [ownerView(u)];
      });
      return page(users, args, "assignees");
    },
    labels: (args: PageArgs) => {
      const labels = i.labels.flatMap((id) => {
        const l = w.store.labels.find((x) => x.id === id);
        return l === undefined
          ? []
          : [
              {
                __typename: "Label",
                id: nodeId("LA", l.id),
                name: l.name,
                color: l.color,
                description: l.description,
                isDefault: l.isDefault,
              },
            ];
      });
      return page(labels, args, "labels");
    },
    projectItems: (args: PageArgs) => {
      const found: [ProjectRecord, ItemRecord][] = [];
      for (const p of w.projects.projects)
        for (const it of p.items) if (it.contentId === issueNodeId(i)) found.push([p, it]);
      const conn = page(found, args, "projectItems");
      return {
        ...conn,
        nodes: (conn.nodes as [ProjectRecord, ItemRecord][]).map(([p, it]) => itemView(p, it)),
      };
    },
  });

  const projectView = (p: ProjectRecord): Obj => ({
    __typename: "ProjectV2",
    id: p.id,
    number: p.number,
    title: p.title,
    closed: p.closed,
    databaseId: p.databaseId,
    // Repository collaborators may edit the board; a read-only token's user may not.
    viewerCanUpdate: w.caller?.access !== "read",
    url: `https://github.com/orgs/${p.owner}/projects/${p.number}`,
    owner: () => {
      const u = findUser(w.store, p.owner);
      if (u === undefined) throw new GqlError("NOT_FOUND", `owner ${p.owner} is gone`);
      return ownerView(u);
    },
    field: ({ name }: { name: string }) => {
      const f = p.fields.find((x) => x.name.toLowerCase() === name.toLowerCase());
      return f === undefined ? null : fieldView(p, f);
    },
    fields: (args: PageArgs) => {
      const conn = page(p.fields, args, "fields");
      return { ...conn, nodes: (conn.nodes as FieldRecord[]).map((f) => fieldView(p, f)) };
    },
    items: (args: PageArgs) => {
      const conn = page(p.items, args, "items");
      return { ...conn, nodes: (conn.nodes as ItemRecord[]).map((it) => itemView(p, it)) };
    },
  });

  const completed = (it: IterationRecord): boolean => addDays(it.startDate, it.duration) <= today();

  const fieldView = (p: ProjectRecord, f: FieldRecord): Obj => {
    const common = { id: f.id, name: f.name, databaseId: 0, project: () => projectView(p) };
    switch (f.kind) {
      case "builtin":
        return { ...common, __typename: "ProjectV2Field", dataType: f.dataType };
      case "plain":
        return { ...common, __typename: "ProjectV2Field", dataType: f.dataType };
      case "select":
        return {
          ...common,
          __typename: "ProjectV2SingleSelectField",
          dataType: "SINGLE_SELECT",
          options: ({ names }: { names?: string[] | null }) =>
            f.options
              .filter(
                (o) => names == null || names.some((n) => n.toLowerCase() === o.name.toLowerCase()),
              )
              .map((o) => ({ ...o, nameHTML: o.name, descriptionHTML: o.description })),
        };
      case "iteration": {
        const view = (it: IterationRecord): Obj => ({ ...it, titleHTML: it.title });
        return {
          ...common,
          __typename: "ProjectV2IterationField",
          dataType: "ITERATION",
          configuration: () => ({
            duration: f.duration,
            startDay: f.startDay,
            iterations: f.iterations.filter((i) => !completed(i)).map(view),
            completedIterations: f.iterations.filter(completed).map(view),
          }),
        };
      }
    }
  };

  const itemView = (p: ProjectRecord, it: ItemRecord): Obj => ({
    __typename: "ProjectV2Item",
    id: it.id,
    type: "ISSUE",
    isArchived: it.archived,
    databaseId: it.databaseId,
    fullDatabaseId: String(it.databaseId),
    createdAt: isoSeconds(it.createdAt),
    updatedAt: isoSeconds(it.updatedAt),
    project: () => projectView(p),
    content: () => {
      const issue = issueOfNode(it.contentId);
      return issue === undefined ? null : issueView(issue);
    },
    fieldValueByName: ({ name }: { name: string }) => {
      const f = p.fields.find((x) => x.name.toLowerCase() === name.toLowerCase());
      const v = f === undefined ? undefined : it.values.get(f.id);
      return f === undefined || v === undefined ? null : valueView(p, it, f, v);
    },
    fieldValues: (args: PageArgs) => {
      const all: Obj[] = [];
      for (const f of p.fields) {
        const v = it.values.get(f.id);
        if (v !== undefined) all.push(valueView(p, it, f, v));
      }
      return page(all, args, "fieldValues");
    },
  });

  const valueView = (p: ProjectRecord, it: ItemRecord, f: FieldRecord, v: ValueRecord): Obj => {
    const common = {
      id: `PVTFV_${nodeSuffix(it.databaseId)}_${f.id}`,
      databaseId: it.databaseId,
      field: () => fieldView(p, f),
      item: () => itemView(p, it),
    };
    if ("text" in v) return { ...common, __typename: "ProjectV2ItemFieldTextValue", text: v.text };
    if ("number" in v)
      return { ...common, __typename: "ProjectV2ItemFieldNumberValue", number: v.number };
    if ("date" in v) return { ...common, __typename: "ProjectV2ItemFieldDateValue", date: v.date };
    if ("optionId" in v) {
      const o = f.kind === "select" ? f.options.find((x) => x.id === v.optionId) : undefined;
      return {
        ...common,
        __typename: "ProjectV2ItemFieldSingleSelectValue",
        optionId: v.optionId,
        name: o?.name ?? null,
        color: o?.color ?? "GRAY",
      };
    }
    const iter =
      f.kind === "iteration" ? f.iterations.find((x) => x.id === v.iterationId) : undefined;
    return {
      ...common,
      __typename: "ProjectV2ItemFieldIterationValue",
      iterationId: v.iterationId,
      title: iter?.title ?? "",
      startDate: iter?.startDate ?? "",
      duration: iter?.duration ?? 0,
    };
  };

  const issueOfNode = (id: string): IssueRecord | undefined => {
    const m = /^I_kwDO(.+)$/.exec(id);
    if (m?.[1] === undefined) return undefined;
    const n = Number(/^I(\d+)$/.exec(Buffer.from(m[1], "base64url").toString("utf8"))?.[1]);
    return Number.isNaN(n) ? undefined : findIssueById(w.store, n);
  };

  const nodeById = (id: string): Obj | null => {
    if (id.startsWith("I_")) {
      const i = issueOfNode(id);
      return i === undefined ? null : issueView(i);
    }
    if (id.startsWith("U_") || id.startsWith("O_")) {
      const u = [...w.store.users.values()].find((x) => userNodeId(x) === id);
      return u === undefined ? null : ownerView(u);
    }
    if (id === repoNodeId(w.store)) return repoView();
    for (const p of w.projects.projects) {
      if (p.id === id) return projectView(p);
      const f = p.fields.find((x) => x.id === id);
      if (f !== undefined) return fieldView(p, f);
      const it = p.items.find((x) => x.id === id);
      if (it !== undefined) return itemView(p, it);
    }
    return null;
  };

  const mustProject = (id: string): ProjectRecord => {
    const p = w.projects.projects.find((x) => x.id === id);
    if (p === undefined) throw notFoundNode(id);
    return p;
  };
  const mustItem = (p: ProjectRecord, id: string): ItemRecord => {
    const it = p.items.find((x) => x.id === id);
    if (it === undefined) throw notFoundNode(id);
    return it;
  };
  const mustField = (id: string): [ProjectRecord, FieldRecord] => {
    for (const p of w.projects.projects) {
      const f = p.fields.find((x) => x.id === id);
      if (f !== undefined) return [p, f];
    }
    throw notFoundNode(id);
  };
  const touched = (p: ProjectRecord, it: ItemRecord, change: ItemChange): void => {
    it.updatedAt = w.store.clock.now();
    w.changed?.(p, it, change);
  };
  const fieldChange = (p: ProjectRecord, fieldId: string): ItemChange => {
    const f = p.fields.find((x) => x.id === fieldId);
    const type = f === undefined ? "unknown" : webhookFieldType(f);
    return { action: "edited", field: { id: fieldId, type } };
  };

  const options = (
    input: readonly OptionInput[],
    keep: readonly OptionRecord[],
  ): OptionRecord[] => {
    const names = new Set<string>();
    return input.map((o) => {
      if (names.has(o.name.toLowerCase()))
        throw new GqlError(
          "UNPROCESSABLE",
          `Options must have unique names: ${o.name} is repeated`,
        );
      names.add(o.name.toLowerCase());
      const kept = o.id == null ? undefined : keep.find((k) => k.id === o.id);
      return {
        id: kept?.id ?? w.projects.shortId(),
        name: o.name,
        color: o.color,
        description: o.description,
      };
    });
  };
  const iterations = (cfg: IterationConfigInput): IterationRecord[] =>
    cfg.iterations.map((i) => {
      if (i.duration < 1)
        throw new GqlError(
          "UNPROCESSABLE",
          `Iteration duration must be at least 1 day: ${i.title}`,
        );
      return {
        id: w.projects.shortId(),
        title: i.title,
        startDate: i.startDate,
        duration: i.duration,
      };
    });

  const query: Obj = {
    node: ({ id }: { id: string }) => {
      const n = nodeById(id);
      if (n === null) throw notFoundNode(id);
      return n;
    },
    nodes: ({ ids }: { ids: string[] }) => ids.map(nodeById),
    user: ({ login }: { login: string }) => {
      const u = findUser(w.store, login);
      if (u?.type !== "User")
        throw new GqlError(
          "NOT_FOUND",
          `Could not resolve to a User with the login of '${login}'.`,
        );
      return ownerView(u);
    },
    organization: ({ login }: { login: string }) => {
      const u = findUser(w.store, login);
      if (u?.type !== "Organization")
        throw new GqlError(
          "NOT_FOUND",
          `Could not resolve to an Organization with the login of '${login}'.`,
        );
      return ownerView(u);
    },
    repositoryOwner: ({ login }: { login: string }) => {
      const u = findUser(w.store, login);
      return u === undefined ? null : ownerView(u);
    },
    repository: ({ owner, name }: { owner: string; name: string }) => {
      if (
        owner.toLowerCase() !== w.store.owner.login.toLowerCase() ||
        name.toLowerCase() !== w.store.repoName.toLowerCase()
      )
        throw new GqlError(
          "NOT_FOUND",
          `Could not resolve to a Repository with the name '${owner}/${name}'.`,
        );
      return repoView();
    },
  };

  const mutation: Obj = {
    // GitHub deletes an issue only here, for admins of its repository: the issue, its comments,
    // and its items on every project go; its number answers 410 from then on.
    deleteIssue: ({ input }: { input: { issueId: string; clientMutationId?: string } }) => {
      const issue = issueOfNode(input.issueId);
      if (issue === undefined) throw notFoundNode(input.issueId);
      const caller = w.caller;
      if (caller !== undefined && caller.access !== "admin")
        throw new GqlError(
          "FORBIDDEN",
          `${caller.login} does not have the correct permissions to execute \`DeleteIssue\``,
        );
      for (const p of w.projects.projects) {
        const at = p.items.findIndex((it) => it.contentId === input.issueId);
        if (at >= 0) p.items.splice(at, 1);
      }
      removeIssue(w.store, issue.number, "deleted");
      return { clientMutationId: input.clientMutationId ?? null, repository: repoView() };
    },
    createProjectV2: ({
      input,
    }: {
      input: { ownerId: string; title: string; clientMutationId?: string };
    }) => {
      const owner = [...w.store.users.values()].find((u) => userNodeId(u) === input.ownerId);
      if (owner === undefined) throw notFoundNode(input.ownerId);
      return {
        clientMutationId: input.clientMutationId ?? null,
        projectV2: projectView(newProject(w.projects, owner.login, input.title)),
      };
    },
    addProjectV2ItemById: ({
      input,
    }: {
      input: { projectId: string; contentId: string; clientMutationId?: string };
    }) => {
      const p = mustProject(input.projectId);
      if (issueOfNode(input.contentId) === undefined) throw notFoundNode(input.contentId);
      let it = p.items.find((x) => x.contentId === input.contentId);
      if (it === undefined) {
        const databaseId = w.projects.nextDatabaseId();
        it = {
          id: `PVTI_${nodeSuffix(databaseId)}`,
          databaseId,
          contentId: input.contentId,
          values: new Map(),
          createdAt: w.store.clock.now(),
          updatedAt: w.store.clock.now(),
          archived: false,
        };
        p.items.push(it);
        touched(p, it, { action: "created" });
      }
      return { clientMutationId: input.clientMutationId ?? null, item: itemView(p, it) };
    },
    updateProjectV2ItemFieldValue: ({ input }: { input: UpdateValueInput }) => {
      const p = mustProject(input.projectId);
      const it = mustItem(p, input.itemId);
      const f = p.fields.find((x) => x.id === input.fieldId);
      if (f === undefined) throw notFoundNode(input.fieldId);
      it.values.set(f.id, valueFor(f, input.value));
      touched(p, it, fieldChange(p, f.id));
      return { clientMutationId: input.clientMutationId ?? null, projectV2Item: itemView(p, it) };
    },
    clearProjectV2ItemFieldValue: ({ input }: { input: UpdateValueInput }) => {
      const p = mustProject(input.projectId);
      const it = mustItem(p, input.itemId);
      if (it.values.delete(input.fieldId)) touched(p, it, fieldChange(p, input.fieldId));
      return { clientMutationId: input.clientMutationId ?? null, projectV2Item: itemView(p, it) };
    },
    deleteProjectV2Item: ({
      input,
    }: {
      input: { projectId: string; itemId: string; clientMutationId?: string };
    }) => {
      const p = mustProject(input.projectId);
      const it = mustItem(p, input.itemId);
      p.items.splice(p.items.indexOf(it), 1);
      w.changed?.(p, it, { action: "deleted" });
      return { clientMutationId: input.clientMutationId ?? null, deletedItemId: it.id };
    },
    createProjectV2Field: ({ input }: { input: CreateFieldInput }) => {
      const p = mustProject(input.projectId);
      if (p.fields.some((f) => f.name.toLowerCase() === input.name.toLowerCase()))
        throw new GqlError("UNPROCESSABLE", "Name has already been taken");
      const databaseId = w.projects.nextDatabaseId();
      let f: FieldRecord;
      if (input.dataType === "SINGLE_SELECT") {
        if (input.singleSelectOptions == null || input.singleSelectOptions.length === 0)
          throw new GqlError("UNPROCESSABLE", "Single select fields must have at least one option");
        f = {
          kind: "select",
          id: `PVTSSF_${nodeSuffix(databaseId)}`,
          name: input.name,
          options: options(input.singleSelectOptions, []),
        };
      } else if (input.dataType === "ITERATION") {
        const cfg = input.iterationConfiguration;
        f = {
          kind: "iteration",
          id: `PVTIF_${nodeSuffix(databaseId)}`,
          name: input.name,
          duration: cfg?.duration ?? 14,
          startDay: new Date(`${cfg?.startDate ?? today()}T00:00:00Z`).getUTCDay(),
          iterations: cfg === undefined || cfg === null ? [] : iterations(cfg),
        };
      } else
        f = {
          kind: "plain",
          id: `PVTF_${nodeSuffix(databaseId)}`,
          name: input.name,
          dataType: input.dataType,
        };
      p.fields.push(f);
      return { clientMutationId: input.clientMutationId ?? null, projectV2Field: fieldView(p, f) };
    },
    updateProjectV2Field: ({ input }: { input: UpdateFieldInput }) => {
      const [p, f] = mustField(input.fieldId);
      if (f.kind === "builtin")
        throw new GqlError("UNPROCESSABLE", `Field ${f.name} cannot be updated`);
      if (input.name != null) f.name = input.name;
      if (input.singleSelectOptions != null) {
        if (f.kind !== "select")
          throw new GqlError(
            "UNPROCESSABLE",
            "singleSelectOptions is only for single select fields",
          );
        // A full replace: options sent without their id are new options, and every item whose
        // option is gone loses its value (GitHub's documented behaviour).
        f.options = options(input.singleSelectOptions, f.options);
        clearMissing(
          p,
          f.id,
          (v) => "optionId" in v && !f.options.some((o) => o.id === v.optionId),
        );
      }
      const cfg = input.iterationConfiguration;
      if (cfg != null) {
        if (f.kind !== "iteration")
          throw new GqlError(
            "UNPROCESSABLE",
            "iterationConfiguration is only for iteration fields",
          );
        // The trap: every iteration gets a new id and every item's value is cleared.
        f.iterations = iterations(cfg);
        f.duration = cfg.duration;
        f.startDay = new Date(`${cfg.startDate}T00:00:00Z`).getUTCDay();
        clearMissing(p, f.id, () => true);
      }
      return { clientMutationId: input.clientMutationId ?? null, projectV2Field: fieldView(p, f) };
    },
  };

  const clearMissing = (
    p: ProjectRecord,
    fieldId: string,
    gone: (v: ValueRecord) => boolean,
  ): void => {
    for (const it of p.items) {
      const v = it.values.get(fieldId);
      if (v !== undefined && gone(v)) {
        it.values.delete(fieldId);
        touched(p, it, fieldChange(p, fieldId));
      }
    }
  };

  return { query, mutation };
}

interface OptionInput {
  readonly id?: string | null;
  readonly name: string;
  readonly color: OptionColor;
  readonly description: string;
}
interface IterationConfigInput {
  readonly startDate: string;
  readonly duration: number;
  readonly iterations: readonly { title: string; startDate: string; duration: number }[];
}
interface UpdateValueInput {
  readonly projectId: string;
  readonly itemId: string;
  readonly fieldId: string;
  readonly clientMutationId?: string;
  readonly value: {
    text?: string | null;
    number?: number | null;
    date?: string | null;
    singleSelectOptionId?: string | null;
    iterationId?: string | null;
  };
}
interface CreateFieldInput {
  readonly projectId: string;
  readonly name: string;
  readonly dataType: "DATE" | "ITERATION" | "NUMBER" | "SINGLE_SELECT" | "TEXT";
  readonly singleSelectOptions?: readonly OptionInput[] | null;
  readonly iterationConfiguration?: IterationConfigInput | null;
  readonly clientMutationId?: string;
}
interface UpdateFieldInput {
  readonly fieldId: string;
  readonly name?: string | null;
  readonly singleSelectOptions?: readonly OptionInput[] | null;
  readonly iterationConfiguration?: IterationConfigInput | null;
  readonly clientMutationId?: string;
}

const TEXT_MAX = 1024;

/** The stored value for one `ProjectV2FieldValue` (exactly one key, of the field's type). */
function valueFor(f: FieldRecord, value: UpdateValueInput["value"]): ValueRecord {
  const keys = Object.entries(value).filter(([, v]) => v != null);
  if (keys.length !== 1)
    throw new GqlError("UNPROCESSABLE", "Exactly one value must be provided for a project field");
  const invalid = (kind: string): GqlError =>
    new GqlError("UNPROCESSABLE", `Column value must be a valid value for ${kind} column`);
  if (f.kind === "select") {
    const id = value.singleSelectOptionId;
    if (id == null || !f.options.some((o) => o.id === id)) throw invalid("single_select");
    return { optionId: id };
  }
  if (f.kind === "iteration") {
    const id = value.iterationId;
    if (id == null || !f.iterations.some((i) => i.id === id)) throw invalid("iteration");
    return { iterationId: id };
  }
  if (f.kind === "builtin")
    throw new GqlError(
      "UNPROCESSABLE",
      `The field ${f.name} cannot be updated with updateProjectV2ItemFieldValue`,
    );
  if (f.dataType === "TEXT") {
    if (value.text == null || value.text.length > TEXT_MAX) throw invalid("text");
    return { text: value.text };
  }
  if (f.dataType === "NUMBER") {
    if (value.number == null) throw invalid("number");
    return { number: value.number };
  }
  if (value.date == null || !/^\d{4}-\d{2}-\d{2}$/.test(value.date)) throw invalid("date");
  return { date: value.date };
}
