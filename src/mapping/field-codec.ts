/**
 * Field codecs: one compiled rule. A value codec says how the value changes; the slot says where
 * it lives on the target (a canonical field, a `prefix + value` label, or a metadata key); an
 * optional extra label (e.g. `status: in progress` next to an open issue) refines a native value.
 */
import type { JsonValue, WorkItem, WorkItemFieldName } from "../core/model.js";
import type { FieldRule, LabelSpec } from "./schema.js";
import { valueCodecFor, type ValueCodec, type ValueCodecContext } from "./value-codec.js";

/** What `toTarget` accumulates. */
export interface TargetAccumulator {
  readonly fields: Record<string, unknown>;
  readonly labels: string[];
  readonly metadata: Record<string, JsonValue>;
}

/** A label the target must have. */
export interface LabelDefinition {
  readonly name: string;
  readonly color: string;
  readonly description?: string | undefined;
}

/** One compiled field rule. */
export interface FieldCodec {
  readonly field: WorkItemFieldName;
  readonly value: ValueCodec;
  /** The target value for a tinyPM value (including an extra label part). */
  encode(value: unknown): unknown;
  /** The tinyPM value for a target value. */
  decode(value: unknown): unknown;
  put(acc: TargetAccumulator, targetValue: unknown): void;
  /** The target value as the item holds it; `owned` tells which labels belong to label rules. */
  take(item: WorkItem, owned: (label: string) => boolean): unknown;
  /** Whether two target values are the same (users by id, labels as a set, "" as absent). */
  same(a: unknown, b: unknown): boolean;
  /** Whether a label belongs to this rule. */
  owns(label: string): boolean;
  /** The prefix of the labels this rule owns, if any. */
  readonly prefix?: string | undefined;
  labels(): LabelDefinition[];
}

const DEFAULT_COLOR = "ededed";

function labelDefs(spec: LabelSpec, values: readonly string[]): LabelDefinition[] {
  return [...new Set(values)]
    .filter((v) => v !== "")
    .map((v) => ({
      name: spec.prefix + v,
      color: spec.colors?.[v] ?? spec.color ?? DEFAULT_COLOR,
      ...(spec.description === undefined ? {} : { description: spec.description }),
    }));
}

/** Whether `label` starts with `prefix`, ignoring case as GitHub does (`Priority: ` = `priority: `). */
const hasPrefix = (label: string, prefix: string): boolean =>
  label.slice(0, prefix.length).toLowerCase() === prefix.toLowerCase();

/**
 * The value of the item's `prefix + value` label. GitHub label names are case-insensitive and an
 * issue carries the repository's spelling (a person may have created `Priority: MUST HAVE`), so
 * the prefix matches in any case and a value that is one of `spellings` but for case reads as
 * the mapping spells it: the same label, not an edit.
 */
function findLabel(
  item: WorkItem,
  prefix: string,
  spellings: readonly string[] = [],
): string | undefined {
  const hit = item.labels.find((l) => hasPrefix(l, prefix));
  if (hit === undefined) return undefined;
  const value = hit.slice(prefix.length);
  const lower = value.toLowerCase();
  return spellings.includes(value)
    ? value
    : (spellings.find((v) => v.toLowerCase() === lower) ?? value);
}

/** A value stored as `prefix + value` labels. */
function labelSlot(
  field: WorkItemFieldName,
  rule: FieldRule,
  spec: LabelSpec,
  value: ValueCodec,
): FieldCodec {
  return {
    field,
    value,
    encode: (v) => value.encode(v),
    decode: (tv) => value.decode(tv),
    same: (a, b) => value.same(a, b),
    put(acc, tv) {
      if (typeof tv === "string" && tv !== "") acc.labels.push(spec.prefix + tv);
    },
    take: (item) => findLabel(item, spec.prefix, Object.values(rule.map ?? {})),
    owns: (l) => hasPrefix(l, spec.prefix),
    prefix: spec.prefix,
    labels: () => labelDefs(spec, Object.values(rule.map ?? {})),
  };
}

/** A value in the metadata block. */
function metadataSlot(field: WorkItemFieldName, rule: FieldRule, value: ValueCodec): FieldCodec {
  const key = rule.key ?? field;
  return {
    field,
    value,
    encode: (v) => value.encode(v),
    decode: (tv) => (value.accepts(tv) ? value.decode(tv) : undefined),
    same: (a, b) => value.same(a, b),
    put(acc, tv) {
      if (tv !== undefined) acc.metadata[key] = tv as JsonValue;
    },
    take: (item) => item.metadata[key],
    owns: () => false,
    labels: () => [],
  };
}

/** A value in a canonical field of the target (`labels` takes the labels no rule owns). */
function nativeSlot(field: WorkItemFieldName, rule: FieldRule, value: ValueCodec): FieldCodec {
  const slot = rule.to;
  return {
    field,
    value,
    encode: (v) => value.encode(v),
    decode: (tv) => value.decode(tv),
    same: (a, b) => value.same(a, b),
    put(acc, tv) {
      if (slot === "labels") acc.labels.push(...(tv as string[]));
      else if (tv !== undefined) acc.fields[slot] = tv;
    },
    take: (item, owned) =>
      slot === "labels" ? item.labels.filter((l) => !owned(l)) : item[slot as keyof WorkItem],
    owns: () => false,
    labels: () => [],
  };
}

const pairKey = (native: unknown, label: string | undefined): string =>
  `${typeof native === "string" ? native : "\u0001"}\u0000${label ?? "\u0001"}`;

/** A native text value refined by an extra label: target value = `[native, label]`. */
function withExtraLabel(base: FieldCodec, spec: LabelSpec, rule: FieldRule): FieldCodec {
  const table = new Map(Object.entries(spec.map ?? {}));
  const labelOf = (v: string): string => table.get(v) ?? v;
  const pairs = new Map<string, string>();
  const known = new Set<string>();
  for (const k of Object.keys({ ...rule.map, ...spec.map })) {
    const key = pairKey(base.encode(k), labelOf(k) || undefined);
    if (!pairs.has(key)) pairs.set(key, k);
    known.add(labelOf(k));
  }
  return {
    ...base,
    encode(v) {
      if (typeof v !== "string") return [base.encode(v), undefined];
      return [base.encode(v), labelOf(v) || undefined];
    },
    decode(tv) {
      const [native, label] = tv as [unknown, string | undefined];
      const exact = pairs.get(pairKey(native, label));
      if (exact !== undefined) return exact;
      if (label !== undefined && !known.has(label)) return label;
      return base.decode(native);
    },
    same(a, b) {
      const [na, la] = a as [unknown, string | undefined];
      const [nb, lb] = b as [unknown, string | undefined];
      return base.same(na, nb) && la === lb;
    },
    put(acc, tv) {
      const [native, label] = tv as [unknown, string | undefined];
      base.put(acc, native);
      if (label !== undefined) acc.labels.push(spec.prefix + label);
    },
    take: (item, owned) => [base.take(item, owned), findLabel(item, spec.prefix, [...known])],
    owns: (l) => hasPrefix(l, spec.prefix),
    prefix: spec.prefix,
    labels: () => labelDefs(spec, Object.keys(rule.map ?? {}).map(labelOf)),
  };
}

/** Compiles one rule. */
export function compileField(
  field: WorkItemFieldName,
  rule: FieldRule,
  ctx: ValueCodecContext,
): FieldCodec {
  const value = valueCodecFor(field, rule, ctx);
  if (rule.to === "metadata") return metadataSlot(field, rule, value);
  if (rule.to === "label" && rule.label !== undefined)
    return labelSlot(field, rule, rule.label, value);
  const base = nativeSlot(field, rule, value);
  return rule.label === undefined ? base : withExtraLabel(base, rule.label, rule);
}
