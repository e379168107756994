/**
 * Cross-field rules of a mapping file, checked after the schema (parse → validate → rules, as
 * changesets does). Each returns every problem it finds, with its path and the valid choices.
 */
import type { ValidationIssue } from "../core/errors.js";
import type { WorkItemFieldName } from "../core/model.js";
import type { FieldRule, KindRules, MappingSpec, TargetSlot } from "./schema.js";

/** What kind of value a canonical field holds. */
export type ValueType = "text" | "number" | "user" | "users" | "iteration" | "labels";

/** The value type of every canonical field. */
export const FIELD_TYPES: Readonly<Record<WorkItemFieldName, ValueType>> = {
  title: "text",
  description: "text",
  status: "text",
  priority: "text",
  estimate: "number",
  iteration: "iteration",
  assignees: "users",
  acceptingUser: "user",
  labels: "labels",
  color: "text",
  position: "number",
  startedAt: "text",
  completedAt: "text",
};

/** Metadata keys the engine itself uses. */
export const RESERVED_METADATA_KEYS = ["original", "timeEntries"] as const;

/** The slots a field of a given type may go to. */
function allowedSlots(type: ValueType): TargetSlot[] {
  const same = (Object.keys(FIELD_TYPES) as WorkItemFieldName[]).filter(
    (f) => FIELD_TYPES[f] === type,
  );
  const labelOk = type === "text" || type === "number";
  return [...same, ...(labelOk ? (["label"] as const) : []), "metadata"];
}

type Problem = readonly [key: string, message: string];

function checkRule(field: WorkItemFieldName, rule: FieldRule): Problem[] {
  const problems: Problem[] = [];
  const type = FIELD_TYPES[field];
  const allowed = allowedSlots(type);
  if (!allowed.includes(rule.to)) {
    problems.push([
      "to",
      `found "${rule.to}" for a field of type ${type}; valid choices: ${allowed.join(", ")}`,
    ]);
  }
  if (rule.to === "label" && rule.label === undefined) {
    problems.push(["label", "missing; `to: label` needs a label spec with at least `prefix`"]);
  }
  if (rule.to === "label" && rule.label?.map !== undefined) {
    problems.push(["label > map", "found a table; with `to: label` use the rule's `map` instead"]);
  }
  if (rule.label !== undefined && rule.to !== "label" && type !== "text") {
    problems.push(["label", `found a label spec on a ${type} field; only text fields take one`]);
  }
  if (type === "number" && rule.to === "label" && !rule.transform?.includes("number-to-string")) {
    problems.push(["transform", `a number written as a label needs [number-to-string]`]);
  }
  if (rule.max !== undefined && rule.to !== "assignees") {
    problems.push([
      "max",
      `found ${rule.max} on \`to: ${rule.to}\`; valid only with \`to: assignees\``,
    ]);
  }
  if (rule.key !== undefined && rule.to !== "metadata") {
    problems.push([
      "key",
      `found "${rule.key}" on \`to: ${rule.to}\`; valid only with \`to: metadata\``,
    ]);
  }
  const key = rule.key ?? field;
  if (rule.to === "metadata" && (RESERVED_METADATA_KEYS as readonly string[]).includes(key)) {
    problems.push([
      "key",
      `found "${key}"; reserved, choose another (reserved: ${RESERVED_METADATA_KEYS.join(", ")})`,
    ]);
  }
  return problems;
}

function checkKind(kind: "story" | "task", rules: KindRules, file: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const slots = new Map<string, string>();
  const prefixes: { prefix: string; field: string }[] = [];
  for (const [field, rule] of Object.entries(rules) as [
    WorkItemFieldName,
    FieldRule | undefined,
  ][]) {
    if (rule === undefined) continue;
    for (const [key, message] of checkRule(field, rule)) {
      issues.push({ file, path: [kind, field, ...key.split(" > ")], message });
    }
    const slot = rule.to === "metadata" ? `metadata:${rule.key ?? field}` : rule.to;
    const other = slot === "label" ? undefined : slots.get(slot);
    if (other !== undefined) {
      issues.push({
        file,
        path: [kind, field, "to"],
        message: `found "${rule.to}", already written by "${other}"; each target field takes one rule`,
      });
    }
    slots.set(slot, field);
    if (rule.label !== undefined) prefixes.push({ prefix: rule.label.prefix, field });
  }
  for (const a of prefixes) {
    for (const b of prefixes) {
      if (a !== b && b.prefix.startsWith(a.prefix)) {
        issues.push({
          file,
          path: [kind, b.field, "label", "prefix"],
          message: `found "${b.prefix}", which starts with "${a.prefix}" (${a.field}); label prefixes must not overlap`,
        });
      }
    }
  }
  return issues;
}

/** Every cross-field problem of a schema-valid mapping. */
export function checkMappingRules(spec: MappingSpec, file: string): ValidationIssue[] {
  return [...checkKind("story", spec.story, file), ...checkKind("task", spec.task, file)];
}
