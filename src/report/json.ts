/** The JSON report: the {@link Report} itself, in the documented, versioned schema. */
import { reportSchema } from "./schema.js";
import type { Report } from "./types.js";

/**
 * A report as JSON (two-space indented, ending with a newline), keys in the schema's order.
 * A report that does not match the schema (a bug) is still written whole, never lost.
 */
export function renderJson(report: Report): string {
  const parsed = reportSchema.safeParse(report);
  return `${JSON.stringify(parsed.success ? parsed.data : report, null, 2)}\n`;
}
