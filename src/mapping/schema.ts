/**
 * The mapping-file language, as zod schemas (the single source of the JSON Schema in
 * `schemas/mapping.schema.json`). See `docs/mappings.md` for the prose version.
 *
 * A mapping file says, per kind (`story`, `task`) and per canonical tinyPM field, where the value
 * goes on the target (`to`), how it is rewritten on the way (`transform`, `map`, `default`) and how
 * it comes back (`inverse`). Everything a target cannot hold natively goes to `metadata`.
 */
import { z } from "zod";
import { WORK_ITEM_FIELD_NAMES } from "../core/model.js";
import { TRANSFORM_NAMES } from "./transforms.js";

/** Where a rule puts a value on the target: a canonical field, a label, or the metadata block. */
export const TARGET_SLOTS = [...WORK_ITEM_FIELD_NAMES, "label", "metadata"] as const;
export type TargetSlot = (typeof TARGET_SLOTS)[number];

const hexColor = z
  .string()
  .regex(/^[0-9a-fA-F]{6}$/, "a colour is 6 hex digits without '#', e.g. d73a4a")
  .describe("Label colour, 6 hex digits without '#'.");

const valueTable = z
  .record(z.string(), z.string())
  .describe(
    "Value table: tinyPM value → target value. The first entry for a target value wins on the way back.",
  );

/** How a value is written as a label `prefix + value`. */
export const labelSpecSchema = z
  .strictObject({
    prefix: z.string().min(1).describe("Label name prefix, e.g. 'priority: '."),
    map: valueTable
      .optional()
      .describe(
        "Only for a label added next to a native field (`to` is not `label`): tinyPM value → label value; an empty string means no label. Unlisted values use the tinyPM value itself.",
      ),
    color: hexColor.optional().describe("Colour of every label of this rule. @default ededed"),
    colors: z
      .record(z.string(), hexColor)
      .optional()
      .describe("Colour per label value (after `map`), overriding `color`."),
    description: z.string().optional().describe("Label description shown on the target."),
  })
  .describe(
    "A label written as `prefix + value`; every label starting with `prefix` belongs to this rule.",
  );
export type LabelSpec = z.infer<typeof labelSpecSchema>;

/** One rule: a canonical tinyPM field (the key) → a target slot. */
export const fieldRuleSchema = z
  .strictObject({
    to: z.enum(TARGET_SLOTS).describe("Where the value goes on the target."),
    transform: z
      .array(z.enum(TRANSFORM_NAMES))
      .optional()
      .describe("Named transforms applied in order on the way out, reversed on the way back."),
    map: valueTable.optional(),
    inverse: valueTable
      .optional()
      .describe(
        "Extra target value → tinyPM value entries, for target values `map` never produces.",
      ),
    default: z
      .string()
      .optional()
      .describe(
        "Target value for a tinyPM value missing from `map` (otherwise it passes unchanged).",
      ),
    inverseDefault: z
      .string()
      .optional()
      .describe(
        "tinyPM value for a target value found in neither `map` nor `inverse` (otherwise it passes unchanged).",
      ),
    label: labelSpecSchema.optional(),
    max: z
      .int()
      .positive()
      .optional()
      .describe("For user lists: the most users the target holds (GitHub 10, Jira 1)."),
    key: z
      .string()
      .min(1)
      .optional()
      .describe("For `to: metadata`: the key in the metadata block. @default the field name"),
  })
  .describe("A field rule. The key is the canonical tinyPM field; `to` is where it goes.");
export type FieldRule = z.infer<typeof fieldRuleSchema>;

const fieldShape = Object.fromEntries(
  WORK_ITEM_FIELD_NAMES.map((name) => [name, fieldRuleSchema.optional()]),
) as Record<(typeof WORK_ITEM_FIELD_NAMES)[number], z.ZodOptional<typeof fieldRuleSchema>>;

/** The rules of one kind; a field without a rule is not synced. */
export const kindRulesSchema = z
  .strictObject(fieldShape)
  .describe("Rules per canonical field of this kind. A field left out is not synced.");
export type KindRules = z.infer<typeof kindRulesSchema>;

export const commentsSchema = z
  .strictObject({
    header: z
      .boolean()
      .describe(
        "Start each copied comment with a line naming the tinyPM author and date. @default true",
      ),
    transform: z
      .array(z.enum(TRANSFORM_NAMES))
      .optional()
      .describe("Transforms for comment bodies."),
  })
  .describe("How comments are copied.");

export const timeEntriesSchema = z
  .strictObject({
    to: z
      .enum(["metadata", "worklogs"])
      .describe("`metadata` (GitHub: no native time tracking) or `worklogs` (Jira)."),
    summary: z
      .boolean()
      .optional()
      .describe("Append a readable table of the entries to the description. @default false"),
  })
  .describe("Where tinyPM time entries go.");

const boardColor = z
  .enum(["GRAY", "BLUE", "GREEN", "YELLOW", "ORANGE", "RED", "PINK", "PURPLE"])
  .describe("A project option colour (GitHub has these eight only).");

/** The `project:` section: a GitHub Project (v2) board (`targets.github.project`). */
export const projectSectionSchema = z
  .strictObject({
    fields: z
      .strictObject({
        status: z.string().min(1).optional().describe("@default Status"),
        iteration: z.string().min(1).optional().describe("@default Iteration"),
        estimate: z.string().min(1).optional().describe("@default Estimate"),
        priority: z.string().min(1).optional().describe("@default Priority"),
      })
      .optional()
      .describe("The project's field names; missing fields are created."),
    status: z
      .strictObject({ story: valueTable.optional(), task: valueTable.optional() })
      .optional()
      .describe(
        "Story acceptance status and task status → Status option. @default PENDING: Todo, ACCEPTED: Done, REJECTED: Won't do; TO DO: Todo, IN PROGRESS: In Progress, TESTING: Testing, COMPLETED: Done",
      ),
    priority: valueTable
      .optional()
      .describe(
        "Priority → Priority option. @default MUST_HAVE: Must have, SHOULD_HAVE: Should have, COULD_HAVE: Could have, WONT_HAVE: Won't have",
      ),
    closed: z
      .record(z.string(), z.enum(["completed", "not_planned"]))
      .optional()
      .describe(
        "Status options that close the issue, with the close reason. @default Done: completed, Won't do: not_planned",
      ),
    colors: z
      .record(z.string(), boardColor)
      .optional()
      .describe("Option name → colour. @default GRAY"),
    milestones: z
      .boolean()
      .optional()
      .describe(
        "Also give each issue its iteration as a milestone (the board's Iteration stays the one read back; the milestone follows it). @default false",
      ),
  })
  .describe(
    "A GitHub Project (v2) board: status, iteration, estimate and priority of stories and tasks go to its fields instead of labels and milestones.",
  );
export type ProjectSection = z.infer<typeof projectSectionSchema>;

/** A whole mapping file. */
export const mappingSpecSchema = z
  .strictObject({
    $schema: z.string().optional().describe("Path of the JSON Schema, for editor completion."),
    description: z.string().optional().describe("Free text for people."),
    from: z.literal("tinypm").describe("The source system: always tinypm."),
    to: z.enum(["github", "jira"]).describe("The target system."),
    story: kindRulesSchema,
    task: kindRulesSchema,
    comments: commentsSchema,
    timeEntries: timeEntriesSchema,
    project: projectSectionSchema.optional(),
    mentions: z
      .enum(["inert", "matched"])
      .optional()
      .describe(
        "tinyPM `@login` in descriptions and comments: `inert` notifies no one on the target; `matched` turns a matched user's `@login` into a real mention (GitHub `@their-login`, a Jira mention node) and reads it back as `@login`. Unmatched names stay inert. @default inert",
      ),
  })
  .describe("A tinypm-sync mapping: how tinyPM stories and tasks map to GitHub or Jira and back.");
export type MappingSpec = z.infer<typeof mappingSpecSchema>;
