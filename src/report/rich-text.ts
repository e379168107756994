/** The word diff and the rich-content line of a description, shared by every renderer. */
import type { ReportDescription, ReportDiffPart, ReportRichText } from "./types.js";

/** The line saying whether the target's rich content is kept. */
export function richLine(rich: ReportRichText, target: string): string {
  const counts = `${rich.kept} block${rich.kept === 1 ? "" : "s"} kept as written, ${rich.rewritten} rewritten, ${rich.removed} removed`;
  if (rich.lost.length === 0) return `${target} rich content kept (${counts})`;
  const lost = rich.lost
    .map((l) => `${l.where === undefined ? "" : `${l.where} `}"${l.excerpt}": ${l.what.join(", ")}`)
    .join("; ");
  switch (rich.outcome) {
    case "parked":
      if (rich.written === true)
        return `${target} rich content would be lost (${lost}): ${rich.lost.length === 1 ? "that unit is" : "those units are"} parked as a conflict, every other change written (richText: merge) (${counts})`;
      return `${target} rich content would be lost (${lost}): parked as a conflict, nothing written (richText: merge)`;
    case "target-kept":
      return `${target} rich content would be lost (${lost}): ${target}'s description kept (richText: keep-target)`;
    case "kept":
    case "flattened":
      return `warning: ${target} rich content lost (${lost}): written as text (richText: overwrite) (${counts})`;
  }
}

/** Unchanged runs longer than this are shortened in the human formats (JSON keeps them whole). */
const CONTEXT = 40;
/** Added or removed runs longer than this (a created item's whole description) are cut. */
const CHANGED = 400;

/**
 * The diff as people read it: Windows line ends as plain line breaks, long unchanged runs
 * shortened to their ends around `…`, and long added or removed runs cut after `CHANGED`
 * characters with how much was left out (a migration's report would otherwise print every
 * description in full). JSON keeps the diff whole.
 */
export function shortened(diff: readonly ReportDiffPart[]): ReportDiffPart[] {
  return diff.map((raw, i) => {
    const part = { op: raw.op, text: raw.text.replace(/\r\n?/g, "\n") };
    if (part.op !== "same") {
      if (part.text.length <= CHANGED) return part;
      const more = part.text.length - CHANGED;
      return { op: part.op, text: `${part.text.slice(0, CHANGED)}… (${more} more characters)` };
    }
    if (part.text.length <= CONTEXT * 2) return part;
    const head = i === 0 ? "" : part.text.slice(0, CONTEXT);
    const tail = i === diff.length - 1 ? "" : part.text.slice(-CONTEXT);
    return { op: "same", text: `${head}…${tail}` };
  });
}

/** Whether a description entry changes anything visible. */
export function hasDiff(d: ReportDescription): boolean {
  return d.diff.some((p) => p.op !== "same");
}
