import { UsageError } from "../../core/errors.js";
import type {
  Comment,
  CommentDraft,
  ItemRef,
  Iteration,
  Marker,
  UserRef,
  WorkItem,
  WorkItemDraft,
  WorkItemFields,
} from "../../core/model.js";
import type {
  CallOptions,
  CreateOutline,
  ListQuery,
  ProbeResult,
  Tracker,
  TrackerContainer,
} from "../../core/tracker.js";
import { changeFeed } from "./feed.js";
import { checkpointAfterWrites } from "./feed-prime.js";
import { rememberIssue } from "./known-versions.js";
import { KnownTable } from "./known-table.js";
import { createGithubClient } from "./client.js";
import { createItem, createUnfinished, type CreateDeps } from "./create.js";
import { createWriteCost } from "./create-cost.js";
import { statusHistory, statusLeftSince } from "./status-history.js";
import { toComment, toWorkItem } from "./map.js";
import { commentKey, markerKey, parseCommentBody, parseIssueBody } from "./marker.js";
import { probeRepo } from "./probe.js";
import { probeProject } from "./project-probe.js";
import type { GithubContext } from "./context.js";
import {
  getRawIssue,
  listRawComments,
  listRawIssues,
  listSubIssuesRaw,
  loadItem,
  mustGetRawIssue,
} from "./reads.js";
import {
  ensureLabels,
  ensureMilestone,
  listLabels,
  listMilestones,
  type LabelSpec,
} from "./repo-meta.js";
import type { RawIssue } from "./schema.js";
import { issueIdentity, issueOrUnreadable } from "./unreadable.js";
import type { GithubRateLimitState, GithubTracker, GithubTrackerOptions } from "./types.js";
import { describeGithubUsers, listAssignableUsers } from "./users.js";
import {
  addSubIssue,
  createComment,
  patchIssue,
  refuseStaleBefore,
  removeSubIssue,
  updateComment,
  updateRawIssue,
} from "./writes.js";
import { sleep } from "../../core/sleep.js";
import { staleError } from "../../core/stale-fields.js";
import { createProjectBoard } from "./project-board.js";
import { boardFeed } from "./project-feed.js";
import { issueStatusFor, overlay } from "./project-model.js";
import { BOARD_FIELDS, boardPart, issuePart, staleBoardFields } from "./project-patch.js";
import {
  boardIterationUsers,
  canDeleteIssues,
  containerUsers,
  deleteContainer,
  deleteIssue,
} from "./undo-parts.js";

export type { LabelSpec } from "./repo-meta.js";
export type { GithubTracker, GithubTrackerOptions, GithubRateLimitState } from "./types.js";
export { ImportFailedError } from "./import-api.js";

/** The GitHub Issues adapter: one repository's issues as canonical work items. */
export function createGithubTracker(options: GithubTrackerOptions): GithubTracker {
  const timeScale = options.timeScale ?? 1;
  const client = createGithubClient(options);
  const ctx: GithubContext = {
    client,
    ids: new Map(),
    nodeIds: new Map(),
    known: new KnownTable(),
  };
  const boardSpec = options.board;
  const board =
    options.project === undefined || boardSpec === undefined
      ? undefined
      : createProjectBoard(client, options.project, boardSpec, () =>
          onContainer === undefined
            ? undefined
            : // By title: every rewrite of the field gives each iteration a new id.
              (made) => onContainer?.({ kind: "iteration", id: made.title, name: made.title }),
        );
  /**
   * An item with its board values laid over. An issue whose project item failed validation is
   * unreadable (its values unknown, never read as none): the board's error is thrown.
   */
  const view = (item: WorkItem): WorkItem => {
    if (board === undefined || boardSpec === undefined) return item;
    const bad = board.unreadable().get(Number(item.id));
    if (bad !== undefined) throw bad;
    return overlay(item, board.valuesOf(Number(item.id)), boardSpec);
  };
  /** The board read once, on first use: outside any one item's read (it is the whole board's). */
  const boardRead = async (signal?: AbortSignal): Promise<void> => {
    if (board !== undefined && !board.loaded()) await board.load(signal);
  };
  const viewed = async (item: WorkItem, signal?: AbortSignal): Promise<WorkItem> => {
    await boardRead(signal);
    return view(item);
  };
  /**
   * Reads one issue of a many-issue read as an item with its board values: its own payload, its
   * comments or its project item failing validation parks it (under the kind its payload says,
   * or `kind` when the listing tells, as a parent's sub-issues do), the rest is read.
   */
  const readOne = async (
    raw: RawIssue,
    onUnreadable: CallOptions["onUnreadable"],
    signal?: AbortSignal,
    kind?: "task",
  ): Promise<WorkItem | undefined> => {
    const who = { kind: kind ?? toWorkItem(raw).kind, id: String(raw.number), title: raw.title };
    const loaded = await issueOrUnreadable(who, onUnreadable, () => loadItem(ctx, raw, signal));
    if (loaded === undefined) return undefined;
    const item = kind === undefined ? loaded : { ...loaded, kind };
    return issueOrUnreadable({ ...who, kind: item.kind }, onUnreadable, () => view(item));
  };
  /** The board's part of a write, done after the issue's own. */
  const writeBoard = async (
    id: string,
    set: Partial<WorkItemFields>,
    signal?: AbortSignal,
  ): Promise<void> => {
    if (board === undefined) return;
    const parts = boardPart(set);
    if (Object.keys(parts).length === 0) return;
    const number = Number(id);
    let node = ctx.nodeIds.get(number);
    if (node === undefined) {
      await mustGetRawIssue(ctx, id, signal);
      node = ctx.nodeIds.get(number);
    }
    if (node === undefined)
      throw new UsageError(
        `GitHub issue #${id} has no node id; it cannot be added to the project`,
        {
          hint: "GitHub Enterprise Server before 3.x does not serve node ids; use github.com or a newer server.",
        },
      );
    await board.write(number, node, parts, signal);
  };
  let milestones: Iteration[] | undefined;
  let labelsEnsured = options.labels === undefined;
  let markerIndex: Map<string, RawIssue> | undefined;
  /** Told of each milestone and label this tracker creates (a run records them for `undo`). */
  let onContainer: ((c: TrackerContainer) => void) | undefined;
  /** The repository's label names (lower case) as known before the creates that add more. */
  let labelNames: Promise<Set<string>> | undefined;
  const knownLabels = (signal?: AbortSignal): Promise<Set<string>> => {
    labelNames ??= listLabels(ctx, signal).then(
      (all) => new Set(all.map((l) => l.name.toLowerCase())),
      (error: unknown) => {
        labelNames = undefined;
        throw error;
      },
    );
    return labelNames;
  };
  /** The labels a create sent that the repository lacked: GitHub made them with the issue. */
  const noteNewLabels = async (draft: WorkItemDraft, signal?: AbortSignal): Promise<void> => {
    if (onContainer === undefined || draft.labels.length === 0) return;
    const names = await knownLabels(signal);
    for (const name of draft.labels) {
      if (names.has(name.toLowerCase())) continue;
      names.add(name.toLowerCase());
      onContainer({ kind: "label", id: name, name });
    }
  };

  const ensureMilestoneOf = async (
    draft: { name: string } & Omit<Iteration, "id" | "name">,
    o?: CallOptions,
  ): Promise<Iteration> => {
    milestones ??= await listMilestones(ctx, o?.signal);
    return ensureMilestone(ctx, draft, milestones, o?.signal, (made) =>
      onContainer?.({ kind: "iteration", id: made.id, name: made.name }),
    );
  };
  /** A board with `milestones: true` keeps each iteration as a milestone too. */
  const bothIterations = boardSpec?.milestones === true;
  const ensureIteration = async (
    draft: { name: string } & Omit<Iteration, "id" | "name">,
    o?: CallOptions,
  ): Promise<Iteration> => {
    if (board !== undefined) {
      // The milestone first (dates and all): the issue's create or update then finds it by name.
      if (bothIterations) await ensureMilestoneOf(draft, o);
      const it = await board.ensureIteration(draft, o?.signal);
      return { id: it.id, name: it.title, startDate: it.startDate, durationDays: it.duration };
    }
    return ensureMilestoneOf(draft, o);
  };
  const unfinished = createUnfinished();
  const deps: CreateDeps = {
    ctx,
    milestoneFor: async (name, signal) =>
      Number((await ensureMilestoneOf({ name }, { signal })).id),
    beforeCreate: async (signal) => {
      if (!labelsEnsured && options.labels !== undefined) {
        const ensured = await ensureLabels(ctx, options.labels, signal);
        for (const name of ensured.created) onContainer?.({ kind: "label", id: name, name });
        // The listing it read serves as the labels known before this run's creates.
        labelNames ??= Promise.resolve(ensured.names);
        labelsEnsured = true;
      }
      // Read before the create: a label it lacks, the create makes.
      if (onContainer !== undefined) await knownLabels(signal);
    },
    importApi: options.importApi ?? false,
    pollMs: 1000 / timeScale,
    sleep,
  };
  const buildIndex = async (signal?: AbortSignal): Promise<Map<string, RawIssue>> => {
    const index = new Map<string, RawIssue>();
    for await (const raw of listRawIssues(ctx, signal)) {
      const block = parseIssueBody(raw.body).block;
      // An issue `undo` took back is found by no marker: a later create makes a new one.
      if (block === undefined || block.marker.undone !== undefined) continue;
      index.set(markerKey(block.marker), raw);
      // A query that names no tinyPM instance (a version-1 caller) finds the job's item whatever
      // instance its block names, as the Jira adapter's property search does.
      const anyInstance = markerKey({ ...block.marker, instance: undefined });
      if (!index.has(anyInstance)) index.set(anyInstance, raw);
    }
    return index;
  };

  /** The issue's own update (REST), without the board. */
  const updateIssue = async (
    ref: ItemRef,
    patch: Parameters<Tracker["update"]>[1],
    o?: CallOptions,
  ): Promise<WorkItem> => {
    const set = patch.set;
    let milestone: number | null | undefined;
    if (Object.hasOwn(set, "iteration")) {
      if (set.iteration === undefined) milestone = null;
      else {
        const name = set.iteration.name;
        milestones ??= await listMilestones(ctx, o?.signal);
        // A stale update writes nothing, not even a milestone it would create: looked at first.
        if (!milestones.some((m) => m.name === name)) {
          await refuseStaleBefore(ctx, ref.id, patch, o?.signal);
        }
        milestone = await deps.milestoneFor(name, o?.signal);
      }
    }
    const raw = await updateRawIssue(ctx, ref.id, patch, milestone, o?.signal);
    return loadItem(ctx, raw, o?.signal);
  };

  const tracker = {
    system: "github",
    boardFields: board === undefined ? undefined : BOARD_FIELDS,
    capabilities: {
      comments: true,
      timeEntries: false,
      iterations: true,
      labels: true,
      delete: "soft",
      changeFeed: "updated-since",
      markers: true,
      bulkCreate: 1,
    },

    async *list(query: ListQuery, o?: CallOptions): AsyncGenerator<WorkItem> {
      const onUnreadable = o?.onUnreadable;
      await boardRead(o?.signal);
      if (query.parentId !== undefined) {
        // A parent's sub-issues are its tasks: one that cannot be read is parked as a task.
        const subs = await listSubIssuesRaw(ctx, query.parentId, o?.signal, onUnreadable);
        for (const raw of subs) {
          const item = await readOne(raw, onUnreadable, o?.signal, "task");
          if (item !== undefined) yield { ...item, parentId: query.parentId };
        }
        return;
      }
      for await (const raw of listRawIssues(ctx, o?.signal, onUnreadable)) {
        // What a full listing read, the engine holds (feed-prime.ts).
        if (query.kind === undefined) rememberIssue(ctx, raw);
        const isTask = raw.parent_issue_url != null;
        if (query.kind === "task" && !isTask) continue;
        if (query.kind === "story" && isTask) continue;
        // An issue whose comments or project item cannot be read is left out like one that
        // cannot be read.
        const item = await readOne(raw, onUnreadable, o?.signal);
        if (item !== undefined) yield item;
      }
    },
    async get(ref: ItemRef, o?: CallOptions) {
      const onUnreadable = o?.onUnreadable;
      await boardRead(o?.signal);
      // An issue (or its comments, or its project item) failing validation is handed to the
      // caller that asks, like a listing's: it is parked, not taken for gone.
      return issueOrUnreadable({ kind: ref.kind, id: ref.id }, onUnreadable, async () => {
        // A deleted issue answers 410; a 404 is one the token cannot see (moved to a repository
        // it cannot read, access lost): told apart where the caller asks.
        const raw = await getRawIssue(
          ctx,
          ref.id,
          o?.signal,
          onUnreadable === undefined
            ? undefined
            : (error) => {
                onUnreadable({ ...ref, error });
              },
        );
        return raw === undefined ? undefined : view(await loadItem(ctx, raw, o?.signal));
      });
    },
    async create(draft: WorkItemDraft, o?: CallOptions) {
      markerIndex = undefined;
      if (board === undefined || boardSpec === undefined) {
        const made = await unfinished.create(deps, draft, o?.signal);
        await noteNewLabels(draft, o?.signal);
        return made;
      }
      // The issue carries open/closed; status, iteration, estimate and priority go to the board.
      const issueDraft = {
        ...draft,
        status: issueStatusFor(draft.status, boardSpec),
        iteration: bothIterations ? draft.iteration : undefined,
      };
      const item = await unfinished.create(deps, issueDraft, o?.signal);
      await noteNewLabels(issueDraft, o?.signal);
      await writeBoard(item.id, boardPart(draft, true), o?.signal);
      return viewed(item, o?.signal);
    },
    async createMany(drafts: readonly WorkItemDraft[], o?: CallOptions) {
      const out: (WorkItem | Error)[] = [];
      for (const d of drafts)
        out.push(
          await tracker
            .create(d, o)
            .catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
        );
      return out;
    },
    async update(ref: ItemRef, given: Parameters<Tracker["update"]>[1], o?: CallOptions) {
      if (board !== undefined && boardSpec !== undefined) {
        // A board field a person changed since the run read the item: nothing is written.
        if (given.base !== undefined && Object.keys(boardPart(given.set)).length > 0) {
          const now = await board.freshValues(Number(ref.id), o?.signal);
          const fields = staleBoardFields(given.set, given.base, now);
          if (fields.length > 0)
            throw staleError({
              system: "github",
              what: `The project item of GitHub issue #${ref.id}`,
              id: ref.id,
              operation: "projectV2.setValues",
              fields,
            });
        }
        const issuePatch = issuePart(given, boardSpec);
        const updated = await updateIssue(ref, issuePatch, o);
        await writeBoard(ref.id, given.set, o?.signal);
        return viewed(updated, o?.signal);
      }
      return updateIssue(ref, given, o);
    },
    async delete(ref: ItemRef, o?: CallOptions) {
      await patchIssue(ctx, ref.id, { state: "closed", state_reason: "not_planned" }, o?.signal);
    },
    watchContainers(listener: ((c: TrackerContainer) => void) | undefined) {
      onContainer = listener;
      // A new run: the labels a person made since the last one are not this run's.
      labelNames = undefined;
    },
    containerUsers: (c: TrackerContainer, o?: CallOptions) =>
      board !== undefined && c.kind === "iteration"
        ? boardIterationUsers(ctx, board, c.name, o?.signal)
        : containerUsers(ctx, c, o?.signal),
    deleteContainer: (c: TrackerContainer, o?: CallOptions) =>
      board !== undefined && c.kind === "iteration"
        ? board.removeIteration(c.name, o?.signal)
        : deleteContainer(ctx, c, o?.signal),
    purge: async (ref: ItemRef, o?: CallOptions) => {
      markerIndex = undefined;
      await deleteIssue(ctx, ref.id, o?.signal);
    },
    canPurge: (o?: CallOptions) => canDeleteIssues(ctx, o?.signal),
    changes: (from: Parameters<Tracker["changes"]>[0], o?: CallOptions) =>
      board === undefined || boardSpec === undefined
        ? changeFeed(ctx, from, o?.signal, o?.onUnreadable)
        : boardFeed({
            board,
            spec: boardSpec,
            from,
            issues: (cp) => changeFeed(ctx, cp, o?.signal, o?.onUnreadable),
            fetchItem: async (n) => {
              const raw = await getRawIssue(ctx, String(n), o?.signal);
              return raw === undefined
                ? undefined
                : issueOrUnreadable(issueIdentity(raw), o?.onUnreadable, () =>
                    loadItem(ctx, raw, o?.signal),
                  );
            },
            view,
            onUnreadable: o?.onUnreadable,
            signal: o?.signal,
          }),
    // A board's feed keeps its own checkpoint (the board's values): a migration with a project
    // leaves none, and the first sync reads in full.
    checkpointAfterWrites: (
      o?: CallOptions & { readonly onNone?: ((why: string) => void) | undefined },
    ) =>
      board === undefined
        ? checkpointAfterWrites(ctx, o?.signal, o?.onNone)
        : Promise.resolve(undefined),
    async findByMarker(marker: Marker, o?: CallOptions) {
      markerIndex ??= await buildIndex(o?.signal);
      const key = markerKey(marker);
      const raw = markerIndex.get(key);
      if (raw === undefined) return undefined;
      return viewed(
        (await unfinished.found(ctx, key, raw, o?.signal)) ?? (await loadItem(ctx, raw, o?.signal)),
        o?.signal,
      );
    },
    async statusHistory(ref: ItemRef, o?: CallOptions) {
      return statusHistory(ctx, ref.id, o?.signal);
    },
    async statusLeftSince(ref: ItemRef, status: string, since: string, o?: CallOptions) {
      return statusLeftSince(ctx, ref.id, status, since, o?.signal);
    },
    async addComment(item: ItemRef, draft: CommentDraft, o?: CallOptions) {
      return createComment(ctx, item.id, draft, o?.signal);
    },
    addTimeEntry(): Promise<never> {
      return Promise.reject(
        new UsageError("GitHub issues have no time entries (capabilities.timeEntries is false)", {
          hint: "Carry time entries in the mapping's metadata.",
        }),
      );
    },
    createWriteCost: (creates: readonly CreateOutline[]) =>
      Promise.resolve(createWriteCost(creates)),
    async listIterations(o?: CallOptions) {
      if (board !== undefined) {
        if (!board.loaded()) await board.load(o?.signal);
        return board.iterations().map((it) => ({
          id: it.id,
          name: it.title,
          startDate: it.startDate,
          durationDays: it.duration,
        }));
      }
      milestones = await listMilestones(ctx, o?.signal);
      return [...milestones];
    },
    ensureIteration,
    listUsers: (o?: CallOptions): Promise<readonly UserRef[]> =>
      listAssignableUsers(ctx, o?.signal),
    describeUsers: (users: readonly UserRef[], o?: CallOptions): Promise<readonly UserRef[]> =>
      describeGithubUsers(ctx, users, o?.signal),
    async probe(o?: CallOptions): Promise<ProbeResult> {
      const repo = await probeRepo(ctx, options, o?.signal);
      if (options.project === undefined || boardSpec === undefined || !repo.authenticated)
        return repo;
      const part = await probeProject(
        client,
        options.project,
        boardSpec,
        { classicScopes: repo.classicScopes, ...(options.tokenEnv && { env: options.tokenEnv }) },
        o?.signal,
      );
      return { ...repo, parts: [part] };
    },
    close: () => Promise.resolve(),

    // GitHub extras
    /** Creates missing labels and fixes colours/descriptions: the names created and updated. */
    ensureLabels: async (labels: readonly LabelSpec[], o?: CallOptions) => {
      const { created, updated } = await ensureLabels(ctx, labels, o?.signal);
      return { created, updated };
    },
    listLabels: async (o?: CallOptions) =>
      (await listLabels(ctx, o?.signal)).map((l) => ({
        name: l.name,
        color: l.color ?? undefined,
        description: l.description ?? undefined,
      })),
    addSubIssue: (parent: string, child: string, o?: CallOptions) =>
      addSubIssue(ctx, parent, child, o?.signal),
    removeSubIssue: (parent: string, child: string, o?: CallOptions) =>
      removeSubIssue(ctx, parent, child, o?.signal),
    listSubIssues: async (parent: string, o?: CallOptions) =>
      (await listSubIssuesRaw(ctx, parent, o?.signal, o?.onUnreadable)).map((r) => ({
        ...toWorkItem(r),
        kind: "task" as const,
        parentId: parent,
      })),
    listComments: async (item: ItemRef, o?: CallOptions): Promise<Comment[]> =>
      (await listRawComments(ctx, Number(item.id), o?.signal)).map(toComment),
    updateComment: (commentId: string, body: string, o?: CallOptions) =>
      updateComment(ctx, commentId, body, o?.signal),
    /** The comment a rerun already wrote for this draft (same marker and content key). */
    async findComment(
      item: ItemRef,
      draft: CommentDraft,
      o?: CallOptions,
    ): Promise<Comment | undefined> {
      if (draft.marker === undefined) return undefined;
      const author = draft.author.login ?? draft.author.id ?? draft.author.name ?? "";
      const key = commentKey({ author, createdAt: draft.createdAt, body: draft.body });
      const raw = (await listRawComments(ctx, Number(item.id), o?.signal)).find(
        (c) => parseCommentBody(c.body).block?.key === key,
      );
      return raw === undefined ? undefined : toComment(raw);
    },
    /** One import call with the issue's comments (needs `importApi` rights: admin). */
    async importIssue(draft: WorkItemDraft, comments: readonly CommentDraft[], o?: CallOptions) {
      markerIndex = undefined;
      const item = await createItem({ ...deps, importApi: true }, draft, comments, o?.signal);
      return comments.length === 0
        ? item
        : {
            ...(await loadItem(ctx, await mustGetRawIssue(ctx, item.id, o?.signal), o?.signal)),
            kind: item.kind,
            parentId: item.parentId,
          };
    },
    rateLimitState: (): GithubRateLimitState => ({
      core: client.rateLimit(),
    }),
    serverNow: () => client.serverNow(),
  } satisfies GithubTracker;

  return tracker;
}
