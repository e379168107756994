/** Where a JSON syntax error is: 1-based line and column, and that line's text. */
interface JsonPosition {
  readonly line: number;
  readonly column: number;
  readonly source: string;
}

/**
 * The line and column of a `JSON.parse` error, from the offset V8 puts in its message
 * (`… in JSON at position 42 (line 3 column 5)`, or `at position 42`; at the end of the text for
 * `Unexpected end of JSON input`).
 */
export function jsonSyntaxPosition(text: string, message: string): JsonPosition | undefined {
  const lineCol = /\(line (\d+) column (\d+)\)/.exec(message);
  let line: number;
  let column: number;
  if (lineCol !== null) {
    line = Number(lineCol[1]);
    column = Number(lineCol[2]);
  } else {
    const pos = /at position (\d+)/.exec(message);
    const offset =
      pos !== null ? Number(pos[1]) : message.includes("end of JSON input") ? text.length : -1;
    if (offset < 0) return undefined;
    const before = text.slice(0, offset).split("\n");
    line = before.length;
    column = (before.at(-1)?.length ?? 0) + 1;
  }
  const source = (text.split("\n")[line - 1] ?? "").replace(/\r$/, "");
  return { line, column, source: source.length > 120 ? `${source.slice(0, 117)}...` : source };
}
