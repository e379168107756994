/**
 * Compiles a mapping spec once into pure functions for both directions. No I/O: users and
 * iterations are passed in as tables.
 *
 * The round-trip rule: whatever `inverse(forward(x))` does not give back exactly travels in
 * `metadata.original`, and is used on the way back only while the target still holds what
 * `forward(original)` wrote. So the round trip is lossless, and an edit on the target wins.
 */
import type {
  Comment,
  CommentDraft,
  ItemKind,
  Iteration,
  IterationDraft,
  JsonValue,
  TimeEntryDraft,
  WorkItem,
  WorkItemDraft,
  WorkItemFieldName,
  WorkItemFields,
} from "../core/model.js";
import { WORK_ITEM_FIELD_NAMES } from "../core/model.js";
import { createCommentCodec } from "./comments.js";
import { composeDescription, type DescriptionComposition } from "./description.js";
import {
  compileField,
  type FieldCodec,
  type LabelDefinition,
  type TargetAccumulator,
} from "./field-codec.js";
import { createIterationCodec } from "./iterations.js";
import { boardIterationCodec, rulesWithProject } from "./project.js";
import type { FieldRule, KindRules, MappingSpec } from "./schema.js";
import { appendSummary, createTimeEntryCodec, stripSummary } from "./time-entries.js";
import { createMentionCodec } from "./mention-codec.js";
import type { TextContext } from "./transforms.js";
import { createUserLookup } from "./user-lookup.js";
import { EMPTY_USER_TABLE, type UserTable } from "./users.js";
import type { ValueCodecContext } from "./value-codec.js";
import { isRecord, sameValue, toJsonValue } from "./values.js";

export type { LabelDefinition } from "./field-codec.js";

/** The lookups a mapping needs, computed by the caller (no I/O in the mapping). */
export interface CompileTables {
  /** User translation (from `matchUsers`). @default no user translates, policy skip */
  readonly users?: UserTable | undefined;
  /** tinyPM iterations, so that `toTinypm` gives iteration refs their tinyPM id. */
  readonly iterations?: readonly Iteration[] | undefined;
}

/** A mapping compiled into pure functions. */
export interface CompiledMapping {
  readonly target: "github" | "jira";
  readonly spec: MappingSpec;
  /** A tinyPM item as a target-flavoured draft, with `metadata` (kind and tinyPM `parentId` kept). */
  toTarget(item: WorkItem): WorkItemDraft;
  /** A target item as a tinyPM-flavoured draft, using its `metadata` for what the target lacks. */
  toTinypm(item: WorkItem): WorkItemDraft;
  commentToTarget(comment: Comment): CommentDraft;
  commentToTinypm(comment: Comment): CommentDraft;
  /** The target's native time entries of a tinyPM item (Jira worklogs; GitHub: none). */
  timeEntriesToTarget(item: WorkItem): TimeEntryDraft[];
  /** The tinyPM time entries of a target item (from worklogs or metadata). */
  timeEntriesToTinypm(item: WorkItem): TimeEntryDraft[];
  iterationToTarget(iteration: Iteration): IterationDraft;
  iterationToTinypm(iteration: Iteration): IterationDraft;
  /** The labels the target must have (GitHub "ensure labels"), with colours. */
  labels(): readonly LabelDefinition[];
  /**
   * Labels follow values: `current` (a target item's labels) with every label family
   * (`priority: …`, `acceptance: …`, `color-…`) that does not carry exactly the label of the value
   * in `desired` (the labels `toTarget` gives the values the item holds) rewritten to it — a stale
   * label replaced, one label per family; a family the target carries no label of is its own
   * "none" and is left alone. A label that reads as the same
   * value in another form (`estimate: 3.0`, `Priority: Must Have`) is left as it is, and so are
   * labels no family owns (tags, the target's own). `undefined` when nothing is to rewrite.
   */
  followLabels(
    kind: ItemKind,
    desired: readonly string[],
    current: readonly string[],
  ): string[] | undefined;
  /** The comparable fields of an item (defined ones only), for per-field comparison. */
  fieldsOf(item: WorkItemFields): Partial<WorkItemFields>;
  /** The fields the mapping syncs for a kind. */
  fieldNames(kind: ItemKind): readonly WorkItemFieldName[];
  /**
   * `next`'s description (and time summary) written onto `target` as the smallest change, keeping
   * the blocks it did not touch as the target holds them; `undefined` when the description rule
   * does not map text to the target's description.
   */
  /** With `park`, units whose rich content would be lost are left as the target holds them. */
  composeDescription(
    target: WorkItem,
    next: WorkItem,
    park?: boolean,
  ): DescriptionComposition | undefined;
}

/** What a mapping syncs, known from its spec alone (no compile, no users). */
export type MappedFields = Pick<CompiledMapping, "fieldNames">;

/** The fields each kind's rules map, in the rules' order: `CompiledMapping.fieldNames`. */
function ruleFields(rules: KindRules): [WorkItemFieldName, FieldRule][] {
  return (Object.entries(rules) as [WorkItemFieldName, FieldRule | undefined][]).filter(
    (e): e is [WorkItemFieldName, FieldRule] => e[1] !== undefined,
  );
}

/**
 * The fields the spec maps per kind, without compiling it: what a run's read needs before it
 * knows the target's users (`compileMapping` then compiles once, with them).
 */
export function mappedFields(spec: MappingSpec): MappedFields {
  const names: Record<ItemKind, readonly WorkItemFieldName[]> = {
    story: ruleFields(rulesWithProject(spec, "story")).map(([field]) => field),
    task: ruleFields(rulesWithProject(spec, "task")).map(([field]) => field),
  };
  return { fieldNames: (kind) => names[kind] };
}

interface KindCodec {
  readonly codecs: readonly FieldCodec[];
  readonly owned: (label: string) => boolean;
}

function compileKind(rules: KindRules, ctx: ValueCodecContext): KindCodec {
  const codecs = ruleFields(rules).map(([field, rule]) => compileField(field, rule, ctx));
  // A label belongs to a rule whatever its case (GitHub label names are case-insensitive).
  return { codecs, owned: (label) => codecs.some((c) => c.owns(label)) };
}

function encodeItem(
  kind: KindCodec,
  item: WorkItem,
): TargetAccumulator & { original: Record<string, JsonValue> } {
  const acc = { fields: {}, labels: [], metadata: {}, original: {} as Record<string, JsonValue> };
  for (const c of kind.codecs) {
    const value = item[c.field];
    const tv = c.encode(value);
    c.put(acc, tv);
    if (!c.value.exact && !sameValue(c.decode(tv), value))
      acc.original[c.field] = toJsonValue(value) ?? null;
  }
  return acc;
}

function decodeField(
  c: FieldCodec,
  tv: unknown,
  original: Readonly<Record<string, unknown>>,
): unknown {
  if (Object.hasOwn(original, c.field)) {
    const ov = original[c.field] === null ? undefined : original[c.field];
    if (c.value.accepts(ov) && c.same(c.encode(ov), tv)) return ov;
  }
  return c.decode(tv);
}

function decodeItem(kind: KindCodec, item: WorkItem): Record<string, unknown> {
  const original = isRecord(item.metadata.original) ? item.metadata.original : {};
  const out: Record<string, unknown> = {};
  for (const c of kind.codecs) {
    const v = decodeField(c, c.take(item, kind.owned), original);
    if (v !== undefined) out[c.field] = v;
  }
  return out;
}

/** The draft: kind, parent, the mapped fields, and the required ones filled from the item. */
function assemble(
  item: WorkItem,
  fields: Record<string, unknown>,
  labels: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: item.kind };
  if (item.parentId !== undefined) out.parentId = item.parentId;
  for (const k in fields) out[k] = fields[k];
  out.title = fields.title ?? item.title;
  out.status = fields.status ?? item.status;
  out.assignees = fields.assignees ?? [];
  out.labels = labels;
  return out;
}

/**
 * Compiles a validated mapping.
 * @example const m = compileMapping(loadMapping("mappings/github.yaml"), { users: table });
 */
export function compileMapping(spec: MappingSpec, tables: CompileTables = {}): CompiledMapping {
  const table = tables.users ?? EMPTY_USER_TABLE;
  const users = createUserLookup(table);
  const iterations = new Map((tables.iterations ?? []).map((it) => [it.name, it]));
  const text: TextContext = {
    mentions: createMentionCodec({ target: spec.to, mode: spec.mentions ?? "inert", users: table }),
  };
  const ctx: ValueCodecContext = { users, iterations, text };
  const kinds: Record<ItemKind, KindCodec> = {
    story: compileKind(rulesWithProject(spec, "story"), ctx),
    task: compileKind(rulesWithProject(spec, "task"), ctx),
  };
  const comments = createCommentCodec({
    header: spec.comments.header,
    transform: spec.comments.transform ?? [],
    users,
    text,
  });
  const summary = spec.timeEntries.summary ?? false;
  const time = createTimeEntryCodec({ to: spec.timeEntries.to, summary, users });
  const iterationCodec =
    spec.project === undefined ? createIterationCodec(spec.to) : boardIterationCodec();
  return {
    target: spec.to,
    spec,
    toTarget(item) {
      const acc = encodeItem(kinds[item.kind], item);
      const metadata = acc.metadata;
      if (Object.keys(acc.original).length > 0) metadata.original = acc.original;
      const entries = time.metadataFor(item);
      if (entries !== undefined) metadata.timeEntries = entries;
      const block = time.summary(item.timeEntries);
      if (block !== undefined) {
        acc.fields.description = appendSummary(acc.fields.description as string | undefined, block);
      }
      const draft = assemble(item, acc.fields, acc.labels);
      draft.metadata = metadata;
      return draft as unknown as WorkItemDraft;
    },
    toTinypm(item) {
      const stripped = summary ? stripSummary(item.description) : item.description;
      const source = stripped === item.description ? item : { ...item, description: stripped };
      const fields = decodeItem(kinds[item.kind], source);
      const labels = (fields.labels as string[] | undefined) ?? [];
      return assemble(item, fields, labels) as unknown as WorkItemDraft;
    },
    commentToTarget: (c) => comments.toTarget(c),
    commentToTinypm: (c) => comments.toTinypm(c),
    timeEntriesToTarget: (item) => time.toTarget(item),
    timeEntriesToTinypm: (item) => time.toTinypm(item),
    iterationToTarget: (it) => iterationCodec.toTarget(it),
    iterationToTinypm: (it) => iterationCodec.toTinypm(it),
    labels: () => uniqueLabels([...kinds.story.codecs, ...kinds.task.codecs]),
    followLabels: (kind, desired, current) => followLabels(kinds[kind], desired, current),
    fieldsOf,
    fieldNames: (kind) => kinds[kind].codecs.map((c) => c.field),
    composeDescription: (target, next, park) =>
      composeDescription(
        {
          rule: spec[next.kind].description,
          summaryOn: summary,
          summary: (item) => time.summary(item.timeEntries),
          text,
        },
        target,
        next,
        park,
      ),
  };
}

/** See `CompiledMapping.followLabels`. */
function followLabels(
  kind: KindCodec,
  desired: readonly string[],
  current: readonly string[],
): string[] | undefined {
  const stale: FieldCodec[] = [];
  for (const c of kind.codecs) {
    if (c.prefix === undefined) continue;
    const have = current.filter((l) => c.owns(l));
    // No label of the family is how the target holds "none" its own way (an issue opened by hand
    // without a priority): a value, not a stale label. A cleared value flows as an edit instead.
    if (have.length === 0) continue;
    const want = desired.filter((l) => c.owns(l));
    const [h, w] = [have[0], want[0]];
    const same =
      have.length === want.length &&
      (h === undefined || w === undefined || sameLabelValue(c, c.prefix, h, w));
    if (!same) stale.push(c);
  }
  if (stale.length === 0) return undefined;
  const rewritten = (l: string): boolean => stale.some((c) => c.owns(l));
  const fresh = desired.filter(rewritten);
  const spelled = new Map(current.map((l) => [l.toLowerCase(), l]));
  return [
    ...current.filter((l) => !rewritten(l)),
    ...fresh.map((l) => spelled.get(l.toLowerCase()) ?? l),
  ];
}

/** Two labels of one family that name the same value (in any case, or in another form: `3.0`). */
function sameLabelValue(c: FieldCodec, prefix: string, a: string, b: string): boolean {
  const [va, vb] = [a.slice(prefix.length), b.slice(prefix.length)];
  if (va.toLowerCase() === vb.toLowerCase()) return true;
  // A value label (`estimate: 3`) is compared as the value it reads as; an extra label next to
  // a native value (`acceptance: …`) by its text only.
  if (Array.isArray(c.encode(undefined))) return false;
  const [da, db] = [c.decode(va), c.decode(vb)];
  return da !== undefined && JSON.stringify(da) === JSON.stringify(db);
}

function uniqueLabels(codecs: readonly FieldCodec[]): LabelDefinition[] {
  const byName = new Map<string, LabelDefinition>();
  for (const c of codecs)
    for (const l of c.labels()) if (!byName.has(l.name)) byName.set(l.name, l);
  return [...byName.values()];
}

/** The defined comparable fields of an item. */
export function fieldsOf(item: WorkItemFields): Partial<WorkItemFields> {
  const out: Record<string, unknown> = {};
  for (const name of WORK_ITEM_FIELD_NAMES) if (item[name] !== undefined) out[name] = item[name];
  return out;
}
