/** One entry point for every report format. */
import { renderHtml } from "./html.js";
import { renderJson } from "./json.js";
import { renderMarkdown } from "./markdown.js";
import { renderText, textLines } from "./text.js";
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

/** Lines of the text report per piece {@link renderChunks} yields. */
const LINES_PER_CHUNK = 512;

/**
 * {@link renderReport}'s result in pieces that join into it: the text report a few hundred lines
 * at a time (a 16,000-item migration's is 85,000 lines, which as one text and its bytes held
 * about 25 MB more at the run's end), the other formats whole.
 */
export function* renderChunks(
  report: Report,
  format: ReportFormat,
  opts: RenderOptions = {},
): Generator<string> {
  if (format !== "text") {
    yield renderReport(report, format, opts);
    return;
  }
  let chunk: string[] = [];
  for (const line of textLines(report, opts)) {
    chunk.push(line);
    if (chunk.length === LINES_PER_CHUNK) {
      yield `${chunk.join("\n")}\n`;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield `${chunk.join("\n")}\n`;
}
