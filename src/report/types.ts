/**
 * The report of a run or a dry run: what every renderer (text, JSON, Markdown, HTML) shows.
 * Self-contained plain data (JSON-safe), versioned. Its shape is declared once, as the zod schema
 * in `schema.ts` (which also generates `schemas/report.schema.json`); these types derive from it.
 */
import type { z } from "zod";
import type { reportItemSchema, reportSchema, ReportValue } from "./schema.js";

export { REPORT_SCHEMA_VERSION, type ReportValue } from "./schema.js";

/** Plain data as the renderers receive it: nothing in a report is changed once built. */
type Frozen<T> = T extends ReportValue
  ? T
  : T extends readonly (infer U)[]
    ? readonly Frozen<U>[]
    : T extends object
      ? { readonly [K in keyof T]: Frozen<T[K]> }
      : T;

export type Report = Frozen<z.infer<typeof reportSchema>>;
export type ReportItem = Frozen<z.infer<typeof reportItemSchema>>;
export type ReportAction = ReportItem["action"];
export type ReportFieldChange = ReportItem["changes"][number];
export type ReportConflict = ReportItem["conflicts"][number];
/** A description written (or parked): the word diff of its visible text. */
export type ReportDescription = NonNullable<ReportItem["descriptions"]>[number];
/** One run of a word diff: text both have, text added, text removed (line breaks kept). */
export type ReportDiffPart = ReportDescription["diff"][number];
/** What happens to the target's rich content when its description is written. */
export type ReportRichText = NonNullable<ReportDescription["rich"]>;
/** One field a create writes: the new item's value, in the written side's terms. */
export type ReportWrite = NonNullable<ReportItem["writes"]>[number];
/** Links for people: the item's page on each side, where known. */
export type ReportLinks = NonNullable<ReportItem["links"]>;
export type ReportApiUse = Report["apiCalls"][string];
/** What a run read of tinyPM: everything, or which tiers (sections) and why. */
export type ReportTinypmRead = NonNullable<Report["tinypmRead"]>;
export type ReportUserMatch = Report["users"]["matches"][number];
export type ReportAssigneeLoss = NonNullable<Report["users"]["assigneeLoss"]>;
/** For dry runs: how long the writes would take at the configured limits. */
export type ReportDurationEstimate = NonNullable<Report["estimatedDuration"]>;
/** The deletion guard: linked items the run deletes or closes on each side against `maxDeletes`. */
export type ReportDeleteGuard = NonNullable<Report["deleteGuard"]>;

export type ReportFormat = "text" | "json" | "markdown" | "html";
