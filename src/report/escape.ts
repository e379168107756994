/**
 * Escaping for every output a report goes to: HTML, Markdown (pasted into GitHub or Jira, where
 * `@name` would notify someone) and terminals (where a title could carry escape sequences).
 */

const HTML: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe inside HTML elements and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML[c] ?? c);
}

/** A zero-width space: breaks `@name` and `#12` so GitHub links or notifies nobody. */
const ZWSP = "\u200B";

/**
 * `@mentions` (people and teams) and `#123` issue references broken with a zero-width space, so
 * pasting a report into an issue or pull request notifies no one and cross-references nothing.
 * Markdown escapes would not do: GitHub finds mentions in the rendered text.
 */
export function neutraliseMentions(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}_.+-])@(?=[\p{L}\p{N}_])|#(?=\p{N})/gu, (c) => `${c}${ZWSP}`);
}

/**
 * Text safe inline in Markdown, table cells included: Markdown punctuation backslash-escaped
 * (`|`, backticks, `*`, `_`, `[`…), HTML tags shown as text, line breaks as spaces, control
 * characters dropped, mentions neutralised.
 */
export function escapeMarkdown(text: string): string {
  const flat = text
    .replace(/\r\n|[\r\n\u2028\u2029]/g, " ")
    // eslint-disable-next-line no-control-regex -- control characters have no place in Markdown
    .replace(/[\u0000-\u001f\u007f]/g, "");
  return neutraliseMentions(flat.replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`));
}

/**
 * A Markdown code span that holds `text` verbatim (for ids): the fence is longer than any run of
 * backticks inside, and `|` is escaped, which GitHub tables need even inside code.
 */
export function markdownCode(text: string): string {
  const flat = text.replace(/[\r\n]+/g, " ").replace(/\|/g, "\\|");
  const longest = Math.max(0, ...Array.from(flat.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Text safe on a terminal: control characters (escape sequences, carriage returns, bells) and
 * bidirectional overrides (which reorder what is shown) appear as `\u001b`-style escapes instead
 * of being obeyed; tabs and newlines become spaces.
 */
export function escapeTerminal(text: string): string {
  return text.replace(/[\t\n]/g, " ").replace(
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
