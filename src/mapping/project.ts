import type { BoardColor, BoardOption, BoardSpec } from "../core/board.js";
import type { ItemKind, Iteration, IterationDraft } from "../core/model.js";
import { daysBetween, type IterationCodec } from "./iterations.js";
import type { FieldRule, KindRules, MappingSpec, ProjectSection } from "./schema.js";

/**
 * The mapping's `project:` section: a GitHub Project (v2) board. Pure. With the section, the
 * status, priority, estimate and iteration of stories and tasks travel as board values (target
 * fields `status`, `priority`, `estimate`, `iteration` the GitHub adapter reads and writes on the
 * board) under the same three-way merge as every other field; their `story`/`task` rules (labels,
 * milestones) are replaced.
 */

const STORY_STATUS: Readonly<Record<string, string>> = {
  PENDING: "Todo",
  ACCEPTED: "Done",
  REJECTED: "Won't do",
};
const TASK_STATUS: Readonly<Record<string, string>> = {
  "TO DO": "Todo",
  "IN PROGRESS": "In Progress",
  TESTING: "Testing",
  COMPLETED: "Done",
  PENDING: "Todo",
  IN_PROGRESS: "In Progress",
};
const PRIORITY: Readonly<Record<string, string>> = {
  MUST_HAVE: "Must have",
  SHOULD_HAVE: "Should have",
  COULD_HAVE: "Could have",
  WONT_HAVE: "Won't have",
};
const CLOSED: Readonly<Record<string, "completed" | "not_planned">> = {
  Done: "completed",
  "Won't do": "not_planned",
};

function statusTable(p: ProjectSection, kind: ItemKind): Readonly<Record<string, string>> {
  return (
    (kind === "story" ? p.status?.story : p.status?.task) ??
    (kind === "story" ? STORY_STATUS : TASK_STATUS)
  );
}

/** A kind's rules with the board's fields in place of their own. */
export function rulesWithProject(spec: MappingSpec, kind: ItemKind): KindRules {
  const rules = spec[kind];
  const p = spec.project;
  if (p === undefined) return rules;
  const status: FieldRule = {
    to: "status",
    map: { ...statusTable(p, kind) },
    // An open issue not yet on the board reads as the first Status of the table.
    inverseDefault: Object.keys(statusTable(p, kind))[0],
  };
  return {
    ...rules,
    status,
    priority: { to: "priority", map: { ...(p.priority ?? PRIORITY) } },
    estimate: { to: "estimate" },
    iteration: { to: "iteration" },
  };
}

/** The board the GitHub adapter keeps, or undefined without a `project:` section. */
export function boardSpecOf(spec: MappingSpec): BoardSpec | undefined {
  const p = spec.project;
  if (p === undefined) return undefined;
  const color = (name: string): BoardColor => p.colors?.[name] ?? "GRAY";
  const options = (names: Iterable<string>): BoardOption[] =>
    [...new Set(names)].map((name) => ({ name, color: color(name) }));
  const story = statusTable(p, "story");
  return {
    fields: {
      status: p.fields?.status ?? "Status",
      iteration: p.fields?.iteration ?? "Iteration",
      estimate: p.fields?.estimate ?? "Estimate",
      priority: p.fields?.priority ?? "Priority",
    },
    statusOptions: options([...Object.values(story), ...Object.values(statusTable(p, "task"))]),
    priorityOptions: options(Object.values(p.priority ?? PRIORITY)),
    closed: p.closed ?? CLOSED,
    openStatus: Object.values(story)[0] ?? "Todo",
    ...(p.milestones === true && { milestones: true }),
  };
}

/** Iterations on a board: the title, start date and length in days, as tinyPM has them. */
export function boardIterationCodec(): IterationCodec {
  const keep = (it: Iteration): IterationDraft => {
    const out: Record<string, unknown> = { name: it.name };
    if (it.startDate !== undefined) out.startDate = it.startDate;
    const days =
      it.durationDays ??
      (it.startDate !== undefined && it.endDate !== undefined
        ? daysBetween(it.startDate, it.endDate)
        : undefined);
    if (days !== undefined) out.durationDays = days;
    return out as unknown as IterationDraft;
  };
  return { toTarget: keep, toTinypm: keep };
}
