import { SyncError } from "../core/errors.js";

/**
 * Renders an error for people: `error [code]: message`, then the hint and, for validation
 * errors, every issue with its path. The cause chain is shown with `verbose`.
 */
export function renderError(error: unknown, opts: { verbose?: boolean } = {}): string {
  if (!(error instanceof SyncError)) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return [
      "error [internal]: tinypm-sync hit a bug it did not expect.",
      `  ${text.split("\n").join("\n  ")}`,
      "  hint: please report it with the command you ran and this output (tokens are never printed).",
    ].join("\n");
  }
  const lines = [`error [${error.code}]: ${error.message}`];
  const issues = "issues" in error && Array.isArray(error.issues) ? error.issues : [];
  for (const issue of issues as {
    file?: string;
    path: readonly (string | number)[];
    message: string;
  }[]) {
    const where = [issue.file, ...issue.path.map(String)].filter(
      (p) => p !== undefined && p !== "",
    );
    lines.push(`  - ${where.length > 0 ? `${where.join(" > ")}: ` : ""}${issue.message}`);
  }
  if (error.hint !== undefined) lines.push(`  hint: ${error.hint}`);
  if (opts.verbose === true) {
    let cause: unknown = error.cause;
    while (cause instanceof Error) {
      lines.push(`  cause: ${cause.message}`);
      cause = cause.cause;
    }
  }
  return lines.join("\n");
}
