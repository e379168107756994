import type { BoardSpec } from "../../core/board.js";
import type { GithubProjectRef } from "../connection.js";
import { NotFoundError, PayloadInvalidError } from "../../core/errors.js";
import type { IterationDraft, WorkItemFields } from "../../core/model.js";
import type { GithubClient } from "./client.js";
import {
  ADD_ITEM,
  CREATE_FIELD,
  CREATE_PROJECT,
  ITEMS_PAGE,
  ITEM_VALUES,
  PROJECT_BY_NUMBER,
  PROJECT_FIELDS,
  PROJECTS_BY_TITLE,
  UPDATE_FIELD,
  valueWrites,
  type ValueWrite,
} from "./project-queries.js";
import {
  rewriteMap,
  type BoardField,
  type BoardItem,
  type BoardIteration,
  type BoardValues,
} from "./project-model.js";
import {
  ITEM_OPERATION,
  OPERATION,
  readItemValues,
  readItemsPage,
  type RawValue,
} from "./project-items.js";

/**
 * A GitHub Project (v2) as the board of the job's issues, over GraphQL through the token's gate:
 * finds (or, by title, creates) the project, creates missing fields and options, reads every item
 * with its values in pages of 100, adds issues and writes values as aliased mutations, and adds
 * an iteration by rewriting the field with every item's value set back.
 */
export interface ProjectBoard {
  /** Reads the project, its fields and every item (a fresh read each call). */
  load(signal?: AbortSignal): Promise<void>;
  loaded(): boolean;
  valuesOf(issueNumber: number): BoardValues | undefined;
  /**
   * The issue's values as the board holds them now (one read of its item, kept as its values),
   * for an update to compare with what it planned against; `undefined` when it has no item.
   */
  freshValues(issueNumber: number, signal?: AbortSignal): Promise<BoardValues | undefined>;
  items(): readonly BoardItem[];
  /**
   * The issues whose project item failed validation in the last read, with the error naming the
   * item: their values are unknown (never read as none), so such an issue is parked.
   */
  unreadable(): ReadonlyMap<number, PayloadInvalidError>;
  /** The iteration field's iterations (active and completed), as read. */
  iterations(): readonly BoardIteration[];
  /** Sets an issue's board values (adding it to the project first when it is not there). */
  write(
    issueNumber: number,
    contentId: string,
    set: Partial<WorkItemFields>,
    signal?: AbortSignal,
  ): Promise<void>;
  /** The iteration, created by a rewrite of the field (every item's value set back) when missing. */
  ensureIteration(draft: IterationDraft, signal?: AbortSignal): Promise<BoardIteration>;
  /** Sets back the iteration values a rewrite cleared: `before` = item → iteration as last seen. */
  restore(
    before: ReadonlyMap<number, BoardIteration>,
    previous: readonly BoardIteration[],
    signal?: AbortSignal,
  ): Promise<number>;
  /**
   * The issues whose item has the iteration (by title: a rewrite renumbers every iteration),
   * from a fresh read; an item whose values could not be read counts as using it.
   */
  iterationUsers(title: string, signal?: AbortSignal): Promise<number[]>;
  /**
   * Removes the iteration (by title) by a rewrite of the field without it, every other item's
   * value set back; one gone already is no error.
   */
  removeIteration(title: string, signal?: AbortSignal): Promise<void>;
}

/** Told of each iteration the board creates (not of one found there). */
export type OnIterationCreated = (made: BoardIteration) => void;

const WRITES_PER_REQUEST = 25;
const DEFAULT_DURATION = 14;

interface RawField {
  id?: string;
  name?: string;
  dataType?: string;
  options?: { id: string; name: string; color: string; description: string }[];
  configuration?: { iterations: BoardIteration[]; completedIterations: BoardIteration[] };
}
interface RawProject {
  id: string;
  number: number;
  title: string;
  fields: { nodes: (RawField | null)[] };
}

export function createProjectBoard(
  client: GithubClient,
  ref: GithubProjectRef,
  spec: BoardSpec,
  onIterationCreated?: () => OnIterationCreated | undefined,
): ProjectBoard {
  let projectId: string | undefined;
  let fields: BoardField[] = [];
  let byNumber = new Map<number, BoardItem>();
  let unreadable = new Map<number, PayloadInvalidError>();
  let itemsRead = false;
  let fieldsEnsured = false;

  const q = <T>(
    operation: string,
    query: string,
    variables: Record<string, unknown>,
    write: boolean,
    idempotent: boolean,
    signal?: AbortSignal,
  ): Promise<T> => client.graphql<T>({ operation, query, variables, write, idempotent, signal });

  const readFields = (raw: readonly (RawField | null)[]): BoardField[] =>
    raw
      .filter(
        (f): f is Required<Pick<RawField, "id" | "name" | "dataType">> & RawField =>
          f?.id !== undefined,
      )
      .map((f) => ({
        id: f.id,
        name: f.name,
        dataType: f.dataType,
        options: f.options,
        iterations:
          f.configuration === undefined
            ? undefined
            : [...f.configuration.completedIterations, ...f.configuration.iterations],
      }));
  const field = (name: string): BoardField | undefined =>
    fields.find((f) => f.name.toLowerCase() === name.toLowerCase());

  async function findProject(signal?: AbortSignal): Promise<RawProject> {
    if ("number" in ref) {
      const r = await q<{ repositoryOwner: { projectV2: RawProject | null } | null }>(
        "projectV2.get",
        PROJECT_BY_NUMBER,
        { owner: ref.owner, number: ref.number },
        false,
        true,
        signal,
      );
      const p = r.repositoryOwner?.projectV2 ?? null;
      if (p === null) throw missing(`project ${ref.owner}/${ref.number}`);
      return p;
    }
    const r = await q<{
      repositoryOwner: { id: string; projectsV2?: { nodes: (RawProject | null)[] } } | null;
    }>(
      "projectV2.find",
      PROJECTS_BY_TITLE,
      { owner: ref.owner, title: ref.title },
      false,
      true,
      signal,
    );
    if (r.repositoryOwner === null) throw missing(`owner ${ref.owner}`);
    const found = r.repositoryOwner.projectsV2?.nodes.find((p) => p?.title === ref.title);
    if (found) return found;
    const made = await q<{ createProjectV2: { projectV2: RawProject } }>(
      "projectV2.create",
      CREATE_PROJECT,
      { owner: r.repositoryOwner.id, title: ref.title },
      true,
      false,
      signal,
    );
    return made.createProjectV2.projectV2;
  }

  async function refreshFields(signal?: AbortSignal): Promise<void> {
    const r = await q<{ node: { fields: { nodes: (RawField | null)[] } } }>(
      "projectV2.fields",
      PROJECT_FIELDS,
      { project: projectId },
      false,
      true,
      signal,
    );
    fields = readFields(r.node.fields.nodes);
  }

  /** Missing fields created, missing options added (existing options re-sent with their ids). */
  let ensuring: Promise<void> | undefined;
  function ensureFields(signal?: AbortSignal, firstIteration?: IterationDraft): Promise<void> {
    if (fieldsEnsured) return Promise.resolve();
    ensuring ??= makeFields(signal, firstIteration).finally(() => {
      ensuring = undefined;
    });
    return ensuring;
  }
  /** Structural changes (fields, iterations) one at a time: each rewrite reads the last one's result. */
  let structure: Promise<unknown> = Promise.resolve();
  function serially<T>(run: () => Promise<T>): Promise<T> {
    const next = structure.then(run, run);
    structure = next.catch(() => undefined);
    return next;
  }

  async function makeFields(signal?: AbortSignal, firstIteration?: IterationDraft): Promise<void> {
    let changed = false;
    const select = async (name: string, wanted: BoardSpec["statusOptions"]): Promise<void> => {
      const f = field(name);
      const options = wanted.map((o) => ({ name: o.name, color: o.color, description: "" }));
      if (f === undefined) {
        await q(
          "projectV2.createField",
          CREATE_FIELD,
          { input: { projectId, name, dataType: "SINGLE_SELECT", singleSelectOptions: options } },
          true,
          false,
          signal,
        );
        changed = true;
        return;
      }
      const have = f.options ?? [];
      const extra = options.filter(
        (o) => !have.some((h) => h.name.toLowerCase() === o.name.toLowerCase()),
      );
      if (extra.length === 0) return;
      // A full replace: existing options keep their ids (and so every item its value).
      const keep = have.map((h) => ({
        id: h.id,
        name: h.name,
        color: h.color,
        description: h.description,
      }));
      await q(
        "projectV2.updateField",
        UPDATE_FIELD,
        { input: { fieldId: f.id, singleSelectOptions: [...keep, ...extra] } },
        true,
        true,
        signal,
      );
      changed = true;
    };
    await select(spec.fields.status, spec.statusOptions);
    await select(spec.fields.priority, spec.priorityOptions);
    if (field(spec.fields.estimate) === undefined) {
      await q(
        "projectV2.createField",
        CREATE_FIELD,
        { input: { projectId, name: spec.fields.estimate, dataType: "NUMBER" } },
        true,
        false,
        signal,
      );
      changed = true;
    }
    if (field(spec.fields.iteration) === undefined) {
      // Created with the first iteration asked for (no rewrite, nothing to clear yet); later
      // ones are added by a rewrite.
      const first = firstIteration?.startDate === undefined ? undefined : firstIteration;
      const duration = first?.durationDays ?? DEFAULT_DURATION;
      const iterationConfiguration =
        first?.startDate === undefined
          ? undefined
          : {
              startDate: first.startDate,
              duration,
              iterations: [{ title: first.name, startDate: first.startDate, duration }],
            };
      await q(
        "projectV2.createField",
        CREATE_FIELD,
        {
          input: {
            projectId,
            name: spec.fields.iteration,
            dataType: "ITERATION",
            ...(iterationConfiguration === undefined ? {} : { iterationConfiguration }),
          },
        },
        true,
        false,
        signal,
      );
      changed = true;
    }
    if (changed) await refreshFields(signal);
    fieldsEnsured = true;
  }

  async function loadItems(signal?: AbortSignal): Promise<void> {
    const next = new Map<number, BoardItem>();
    const bad = new Map<number, PayloadInvalidError>();
    let cursor: string | null = null;
    do {
      const page = readItemsPage(
        await q<unknown>(
          OPERATION,
          ITEMS_PAGE,
          { project: projectId, cursor },
          false,
          true,
          signal,
        ),
      );
      for (const n of page.items)
        next.set(n.number, {
          itemId: n.id,
          number: n.number,
          values: valuesOf(n.fieldValues.nodes),
        });
      for (const [number, error] of page.unreadable) bad.set(number, error);
      cursor = page.next;
    } while (cursor !== null);
    byNumber = next;
    unreadable = bad;
    itemsRead = true;
  }

  function valuesOf(nodes: readonly (RawValue | null)[]): BoardValues {
    const out: {
      status?: string;
      priority?: string;
      estimate?: number;
      iteration?: BoardIteration;
    } = {};
    const nameOf = (id: string | undefined): string | undefined =>
      fields.find((f) => f.id === id)?.name.toLowerCase();
    for (const v of nodes) {
      const name = nameOf(v?.field?.id);
      if (v === null || name === undefined) continue;
      if (name === spec.fields.status.toLowerCase() && v.name != null) out.status = v.name;
      if (name === spec.fields.priority.toLowerCase() && v.name != null) out.priority = v.name;
      if (name === spec.fields.estimate.toLowerCase() && v.number != null) out.estimate = v.number;
      if (name === spec.fields.iteration.toLowerCase() && v.iterationId != null)
        out.iteration = {
          id: v.iterationId,
          title: v.title ?? "",
          startDate: v.startDate ?? "",
          duration: v.duration ?? 0,
        };
    }
    return out;
  }

  async function send(writes: readonly ValueWrite[], signal?: AbortSignal): Promise<void> {
    if (projectId === undefined) return;
    for (let i = 0; i < writes.length; i += WRITES_PER_REQUEST) {
      const batch = valueWrites(projectId, writes.slice(i, i + WRITES_PER_REQUEST));
      // Setting a value twice sets it once: safe to repeat.
      await q("projectV2.setValues", batch.query, batch.variables, true, true, signal);
    }
  }

  const iterationField = (): BoardField | undefined => field(spec.fields.iteration);

  async function addIteration(
    draft: IterationDraft,
    signal?: AbortSignal,
  ): Promise<BoardIteration> {
    if (!itemsRead) await board.load(signal);
    const existed = (iterationField()?.iterations ?? []).some((i) => i.title === draft.name);
    await ensureFields(signal, draft);
    const f = iterationField();
    if (f === undefined) throw missing(`iteration field "${spec.fields.iteration}"`);
    const have = f.iterations ?? [];
    const found = have.find((i) => i.title === draft.name);
    if (found !== undefined) {
      // Made with the field itself (its first iteration).
      if (!existed) onIterationCreated?.()?.(found);
      return found;
    }
    if (draft.startDate === undefined)
      throw missing(
        `iteration "${draft.name}" on the board`,
        "The tinyPM iteration has no start date; give it one, or add the iteration on the board.",
      );
    // Adding an iteration rewrites the whole list: every id changes and every item's value is
    // cleared. The values are set back from the board as read just before.
    const before = new Map<number, BoardIteration>();
    for (const b of byNumber.values())
      if (b.values.iteration !== undefined) before.set(b.number, b.values.iteration);
    const all = [
      ...have,
      {
        id: "",
        title: draft.name,
        startDate: draft.startDate,
        duration: draft.durationDays ?? DEFAULT_DURATION,
      },
    ].sort((a, b) => a.startDate.localeCompare(b.startDate));
    await rewrite(f, all, have, draft.durationDays ?? DEFAULT_DURATION, signal);
    const made = (iterationField()?.iterations ?? []).find((i) => i.title === draft.name);
    if (made === undefined) throw missing(`iteration "${draft.name}" after adding it`);
    onIterationCreated?.()?.(made);
    return made;
  }

  /**
   * Rewrites the field's iterations as `all` (GitHub gives every iteration a new id and clears
   * every item's value) and sets back each item's value from the board as read just before.
   */
  async function rewrite(
    f: BoardField,
    all: readonly Omit<BoardIteration, "id">[],
    have: readonly BoardIteration[],
    duration: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const before = new Map<number, BoardIteration>();
    for (const b of byNumber.values())
      if (b.values.iteration !== undefined) before.set(b.number, b.values.iteration);
    await q(
      "projectV2.rewriteIterations",
      UPDATE_FIELD,
      {
        input: {
          fieldId: f.id,
          iterationConfiguration: {
            startDate: all[0]?.startDate ?? have[0]?.startDate,
            duration,
            iterations: all.map((i) => ({
              title: i.title,
              startDate: i.startDate,
              duration: i.duration,
            })),
          },
        },
      },
      true,
      false,
      signal,
    );
    await refreshFields(signal);
    for (const b of byNumber.values())
      if (b.values.iteration !== undefined) b.values = { ...b.values, iteration: undefined };
    await board.restore(before, have, signal);
  }

  async function dropIteration(title: string, signal?: AbortSignal): Promise<void> {
    // A fresh read: the values set back are the board's as it is now, not as a run left it.
    await board.load(signal);
    const f = iterationField();
    const have = f?.iterations ?? [];
    if (f === undefined || !have.some((i) => i.title === title)) return;
    const bad = [...unreadable.keys()];
    if (bad.length > 0)
      throw new PayloadInvalidError(
        `GitHub Project (v2): cannot remove iteration "${title}": the items of issues ${bad.map((n) => `#${n}`).join(", ")} could not be read, and the rewrite would clear their iteration values for good`,
        { system: "github", operation: "projectV2.rewriteIterations" },
        { hint: "Fix or remove those items on the board, then run `undo` again." },
      );
    const rest = have
      .filter((i) => i.title !== title)
      .sort((a, b) => a.startDate.localeCompare(b.startDate));
    await rewrite(f, rest, have, rest[0]?.duration ?? DEFAULT_DURATION, signal);
  }

  const board: ProjectBoard = {
    // Loaded once the items were read: a read that failed midway is done again, never half used.
    loaded: () => itemsRead,
    async load(signal) {
      if (projectId === undefined) {
        const p = await findProject(signal);
        projectId = p.id;
        fields = readFields(p.fields.nodes);
      } else await refreshFields(signal);
      await loadItems(signal);
    },
    valuesOf: (n) => byNumber.get(n)?.values,
    async freshValues(number, signal) {
      if (!itemsRead) await board.load(signal);
      const item = byNumber.get(number);
      if (item === undefined) return undefined;
      const answer = await q<unknown>(
        ITEM_OPERATION,
        ITEM_VALUES,
        { item: item.itemId },
        false,
        true,
        signal,
      ).catch((error: unknown) => {
        // GitHub answers an item removed since with a NOT_FOUND error beside a null node.
        if (error instanceof NotFoundError) return { node: null };
        throw error;
      });
      const raw = readItemValues(answer, number);
      if (raw === undefined) {
        // Removed from the project by a person: the next write adds it again.
        byNumber.delete(number);
        return undefined;
      }
      item.values = valuesOf(raw.fieldValues.nodes);
      return item.values;
    },
    items: () => [...byNumber.values()],
    unreadable: () => unreadable,
    iterations: () => iterationField()?.iterations ?? [],
    async write(issueNumber, contentId, set, signal) {
      if (!itemsRead) await board.load(signal);
      await serially(() => ensureFields(signal));
      let item = byNumber.get(issueNumber);
      if (item === undefined) {
        const r = await q<{ addProjectV2ItemById: { item: { id: string } } }>(
          "projectV2.addItem",
          ADD_ITEM,
          { project: projectId, content: contentId },
          true,
          true,
          signal,
        );
        item = { itemId: r.addProjectV2ItemById.item.id, number: issueNumber, values: {} };
        byNumber.set(issueNumber, item);
      }
      const writes: ValueWrite[] = [];
      const values = { ...item.values };
      const option = (fieldName: string, name: string | undefined): ValueWrite | undefined => {
        const f = field(fieldName);
        if (f === undefined) return undefined;
        if (name === undefined) return { itemId: item.itemId, fieldId: f.id, value: undefined };
        const o = f.options?.find((x) => x.name.toLowerCase() === name.toLowerCase());
        if (o === undefined)
          throw missing(
            `option "${name}" of field "${fieldName}"`,
            "Add it to the mapping's project: value tables (the tool creates their options).",
          );
        return { itemId: item.itemId, fieldId: f.id, value: { singleSelectOptionId: o.id } };
      };
      const push = (w: ValueWrite | undefined): void => {
        if (w !== undefined) writes.push(w);
      };
      if (Object.hasOwn(set, "status")) {
        push(option(spec.fields.status, set.status));
        values.status = set.status;
      }
      if (Object.hasOwn(set, "priority")) {
        push(option(spec.fields.priority, set.priority));
        values.priority = set.priority;
      }
      if (Object.hasOwn(set, "estimate")) {
        const f = field(spec.fields.estimate);
        if (f !== undefined)
          push({
            itemId: item.itemId,
            fieldId: f.id,
            value: set.estimate === undefined ? undefined : { number: set.estimate },
          });
        values.estimate = set.estimate;
      }
      if (Object.hasOwn(set, "iteration")) {
        const f = iterationField();
        const it =
          set.iteration === undefined
            ? undefined
            : await board.ensureIteration({ name: set.iteration.name }, signal);
        if (f !== undefined)
          push({
            itemId: item.itemId,
            fieldId: f.id,
            value: it === undefined ? undefined : { iterationId: it.id },
          });
        values.iteration = it;
      }
      await send(writes, signal);
      item.values = values;
    },
    ensureIteration: (draft, signal) => serially(() => addIteration(draft, signal)),
    async restore(before, previous, signal) {
      const f = iterationField();
      if (f === undefined) return 0;
      const map = rewriteMap(previous, f.iterations ?? []);
      if (map === undefined) return 0;
      const writes: ValueWrite[] = [];
      const restored: [BoardItem, BoardIteration][] = [];
      for (const [number, old] of before) {
        const item = byNumber.get(number);
        const now = map.get(old.id);
        if (item === undefined || now === undefined || item.values.iteration !== undefined)
          continue;
        writes.push({ itemId: item.itemId, fieldId: f.id, value: { iterationId: now.id } });
        restored.push([item, now]);
      }
      await send(writes, signal);
      for (const [item, now] of restored) item.values = { ...item.values, iteration: now };
      return restored.length;
    },
    async iterationUsers(title, signal) {
      await serially(() => board.load(signal));
      const out = new Set<number>();
      for (const b of byNumber.values()) if (b.values.iteration?.title === title) out.add(b.number);
      // Its values unknown: it may use the iteration, and a rewrite would clear it for good.
      for (const n of unreadable.keys()) out.add(n);
      return [...out].sort((a, b) => a - b);
    },
    removeIteration: (title, signal) => serially(() => dropIteration(title, signal)),
  };
  return board;
}

function missing(what: string, hint?: string): NotFoundError {
  return new NotFoundError(
    `GitHub Project (v2): ${what} not found`,
    { system: "github", operation: "projectV2" },
    {
      hint:
        hint ??
        "Check targets.github.project (owner, number or title) and the token's project scope (classic token: project).",
    },
  );
}
