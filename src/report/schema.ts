/**
 * The zod schema of a {@link Report}, the one declaration of its shape: `types.ts` derives the
 * TypeScript types from it, tests validate rendered JSON with it, and it generates
 * `schemas/report.schema.json` (`npm run build && npm run schemas`). `docs/report-format.md` says
 * what may change within a schema version.
 */
import { z } from "zod";

/** Raised only when a field is removed, renamed or changes meaning (docs/report-format.md). */
export const REPORT_SCHEMA_VERSION = 1;

/** A field value as reports show it (normalised JSON). */
export type ReportValue =
  string | number | boolean | null | readonly ReportValue[] | { readonly [k: string]: ReportValue };

/** A field value: normalised JSON. */
export const reportValueSchema: z.ZodType<ReportValue> = z
  .union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(z.lazy(() => reportValueSchema)).meta({ id: "ReportValueList" }),
    z.record(
      z.string(),
      z.lazy(() => reportValueSchema),
    ),
  ])
  .meta({ id: "ReportValue", description: "A field value as normalised JSON (null: no value)." });

const count = z.number().int().min(0);
const action = z
  .enum(["create", "update", "adopt", "delete", "skip", "conflict", "failed"])
  .describe("What happens (or would happen) to the item.");
const side = z.enum(["tinypm", "target"]);

const fieldChange = z
  .object({
    field: z.string().describe("The canonical field name (title, status, labels…)."),
    toSide: side.describe("The side written."),
    from: reportValueSchema.describe("The value before."),
    to: reportValueSchema.describe("The value written."),
  })
  .meta({ id: "ReportFieldChange" });

const conflict = z
  .object({
    field: z.string(),
    base: reportValueSchema.describe("The value both sides had at the last sync."),
    tinypm: reportValueSchema.describe("tinyPM's value now."),
    target: reportValueSchema.describe("The target's value now."),
    resolution: z
      .enum(["parked", "tinypm", "target"])
      .describe("`parked` (left for `conflicts resolve`) or the side that won by policy."),
  })
  .meta({ id: "ReportConflict" });

const description = z
  .object({
    toSide: side.describe("The side written."),
    diff: z
      .array(
        z.object({
          op: z.enum(["same", "added", "removed"]),
          text: z.string().describe("Visible text, line breaks kept."),
        }),
      )
      .describe("Word diff of the visible text, before → after."),
    rich: z
      .object({
        outcome: z
          .enum(["kept", "flattened", "parked", "target-kept"])
          .describe(
            "kept: unchanged blocks keep their form; flattened: changed blocks are written as text; parked: nothing written, a conflict; target-kept: the target's description wins.",
          ),
        kept: count.describe("Target blocks kept as the target holds them."),
        rewritten: count.describe("Target blocks rewritten from tinyPM."),
        removed: count.describe("Target blocks removed."),
        lost: z
          .array(
            z.object({
              excerpt: z.string(),
              what: z.array(z.string()),
              where: z
                .string()
                .optional()
                .describe("Which unit was kept back (`block 2, row 3, cell 2`), when parked."),
            }),
          )
          .describe("Changed blocks whose rich content cannot be placed, and what of it."),
        written: z
          .boolean()
          .optional()
          .describe(
            "parked only: true when every other change was written and only the units in `lost` were kept back.",
          ),
      })
      .optional()
      .describe("For the target side: what happens to its rich content."),
  })
  .meta({ id: "ReportDescription" });

/** One item of a report. */
export const reportItemSchema = z
  .object({
    kind: z.enum(["story", "task"]),
    title: z.string(),
    action,
    direction: z
      .enum(["to-target", "to-tinypm", "both"])
      .optional()
      .describe("Which way data flows, for creates and updates."),
    tinypmId: z.string().optional(),
    targetId: z.string().optional(),
    storyTitle: z.string().optional().describe("For tasks: the story's title."),
    changes: z.array(fieldChange),
    writes: z
      .array(
        z.object({
          field: z
            .string()
            .describe(
              "status, labels, assignees, milestone/sprint/iteration, estimate, priority, parent.",
            ),
          value: reportValueSchema.describe("The value the new item gets, in its side's terms."),
        }),
      )
      .optional()
      .describe("For creates: what the new item gets (its description is in descriptions)."),
    links: z
      .object({
        tinypm: z.string().optional().describe("tinyPM's story page (a task: its story's)."),
        target: z
          .string()
          .optional()
          .describe("The issue on the target: GitHub html_url, Jira <site>/browse/KEY."),
      })
      .optional()
      .describe("The item's pages; a dry run links the target only for updates."),
    conflicts: z.array(conflict),
    descriptions: z
      .array(description)
      .optional()
      .describe("Descriptions written or parked: word diff and rich-content line."),
    kept: z
      .array(z.string())
      .optional()
      .describe(
        "migrate of a two-way job: fields a person changed on the target, left as they are (a later sync carries them to tinyPM).",
      ),
    comments: count.describe("Comments copied (or to copy)."),
    timeEntries: count.describe("Time entries copied (or to copy)."),
    reason: z.string().optional().describe("Why nothing is done (skips), or how (adopt, delete)."),
    error: z
      .object({ code: z.string(), message: z.string() })
      .optional()
      .describe("Why the item failed: a stable error code and a message."),
  })
  .meta({ id: "ReportItem" });

const apiUse = z
  .object({
    reads: count,
    writes: count,
    retries: count,
    rateLimitWaits: count,
    notModified: count.describe("Conditional reads answered 304 (free on GitHub)."),
  })
  .meta({ id: "ReportApiUse" });

/** The report of a run or a dry run, version {@link REPORT_SCHEMA_VERSION}. */
export const reportSchema = z
  .object({
    schemaVersion: z
      .literal(REPORT_SCHEMA_VERSION)
      .describe("Raised only when a field is removed, renamed or changes meaning."),
    runId: z.string(),
    job: z.string(),
    mode: z.enum(["migrate", "sync"]).describe("What the run does, or would do."),
    dryRun: z.boolean().describe("True for `plan` and `--dry-run`: nothing was written anywhere."),
    target: z.string().describe("The target system: github, jira…"),
    startedAt: z.string().describe("ISO 8601."),
    finishedAt: z.string().describe("ISO 8601."),
    summary: z.object({
      created: count,
      updated: count,
      unchanged: count,
      conflicts: count,
      failed: count,
      deleted: count,
    }),
    apiCalls: z.record(z.string(), apiUse).describe("Calls made, per system."),
    estimatedWrites: z
      .record(z.string(), count)
      .optional()
      .describe("For dry runs: the writes the run would make, per system."),
    estimatedDuration: z
      .object({
        durationMs: z.number().int().nonnegative().describe("Time the writes would take."),
        boundBy: z.string().describe("The limit that holds the writes back most."),
        text: z.string().describe("The estimate in words."),
        hint: z.string().optional().describe("What would make it faster."),
      })
      .optional()
      .describe("For dry runs: how long the writes would take at the configured limits."),
    tinypmRead: z
      .object({
        complete: z.boolean().describe("Every item was read: deletions could be inferred."),
        fullReason: z
          .string()
          .optional()
          .describe(
            "Why everything was read: forced, first, due, migration, all-changed, no-tiers, pending, repair, unlinked, undone.",
          ),
        sections: z.array(
          z.object({
            name: z.string(),
            closed: z.boolean().describe("A closed iteration (read in full only now and then)."),
            stories: count,
            reason: z.string().describe("open, full, changed, new, or skipped (not read)."),
          }),
        ),
        fetched: count.describe("Items read one by one because the target changed them."),
        listings: z
          .object({ story: z.string(), task: z.string() })
          .optional()
          .describe("Whether listings carried complete elements: complete, summary, unknown."),
        notRead: count
          .optional()
          .describe(
            "Linked items this run did not read (closed iterations left out): in step as far as the state knows.",
          ),
      })
      .optional()
      .describe("What was read of tinyPM: everything, or which tiers and why."),
    deleteGuard: z
      .object({
        maxDeletes: z
          .union([z.number(), z.string()])
          .describe('The job\'s maxDeletes as configured: 25, or "10%".'),
        limit: count.describe("The limit per side for this job."),
        links: count.describe("The job's live links the percentage is taken of."),
        planned: z
          .object({ tinypm: count, target: count })
          .describe("Linked items deleted or closed on each side."),
        over: z.array(z.enum(["tinypm", "target"])).describe("The sides over the limit."),
        allowed: z.boolean().describe("Over the limit and let through by --allow-deletes."),
        message: z
          .string()
          .optional()
          .describe("Over the limit: what the stopped run says (error mass_delete)."),
        hint: z.string().optional().describe("Over the limit: what to do."),
      })
      .optional()
      .describe(
        "The deletion guard: over the limit, a real run writes nothing and stops with mass_delete.",
      ),
    items: z.array(reportItemSchema),
    users: z.object({
      matches: z.array(
        z.object({
          tinypm: z.string(),
          target: z.string(),
          how: z.string(),
          reason: z.string().optional().describe("What the rule matched on."),
        }),
      ),
      unmapped: z.array(z.string()).describe("tinyPM users with no counterpart on the target."),
      assigneeLoss: z
        .object({
          policy: z.string().describe("The job's user policy: skip, placeholder or fail."),
          items: count.describe("Items sent to the target with an unmatched assignee."),
          byUser: z.record(z.string(), count).describe("Unmatched tinyPM user → their items."),
          message: z.string(),
        })
        .optional()
        .describe("Counted before any write; absent when every assignee maps."),
    }),
    notes: z.array(z.string()).describe("Rate-limit waits and other notes for people."),
  })
  .meta({ title: "tinypm-sync report", description: "The report of a run or a dry run." });

/** Where the JSON Schema is published (`$id`). */
export const REPORT_SCHEMA_ID =
  "https://github.com/tinypm-sync/tinypm-sync/schemas/report.schema.json";

/** The JSON Schema of the report (`schemas/report.schema.json`). */
export function reportJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(reportSchema, { target: "draft-2020-12", io: "input" }),
    $id: REPORT_SCHEMA_ID,
  };
}
