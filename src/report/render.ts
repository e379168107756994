/** One entry point for every report format. */
import { renderHtml } from "./html.js";
import { renderJson } from "./json.js";
import { renderMarkdown } from "./markdown.js";
import { renderText } from "./text.js";
import type { Report, ReportFormat } from "./types.js";

export { shouldColor } from "./color.js";

/** Options of {@link renderReport}. */
export interface RenderOptions {
  /** ANSI colours in `text` (decide with `shouldColor`). @default false */
  readonly color?: boolean | undefined;
  /** List unchanged items too (text, Markdown, HTML). @default false */
  readonly verbose?: boolean | undefined;
  /** The target's display name. @default from the report's target (`GitHub`, `Jira`) */
  readonly targetName?: string | undefined;
}

/**
 * A plan or a finished run in one format: `text` for terminals, `json` (schema
 * `schemas/report.schema.json`), `markdown` for issues and pull requests, `html` (one
 * self-contained file). Every result ends with a newline.
 * @example renderReport(report, "markdown", { targetName: "GitHub" })
 */
export function renderReport(
  report: Report,
  format: ReportFormat,
  opts: RenderOptions = {},
): string {
  switch (format) {
    case "text":
      return renderText(report, opts);
    case "json":
      return renderJson(report);
    case "markdown":
      return renderMarkdown(report, opts);
    case "html":
      return renderHtml(report, opts);
  }
}
