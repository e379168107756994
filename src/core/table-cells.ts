/** Cells of a pipe-table line, as Markdown (GitHub) and Jira's table text write them. Pure. */

/** A table line's cells (`| a | b \| c |` → `a`, `b \| c`), or undefined for no table line. */
export function splitCells(line: string): string[] | undefined {
  if (!/^\|.*\|$/u.test(line) || line.length < 2) return undefined;
  const cells: string[] = [];
  let cell = "";
  for (let i = 1; i < line.length - 1; i++) {
    const ch = line.charAt(i);
    if (ch === "\\" && i + 1 < line.length - 1) {
      cell += ch + line.charAt(i + 1);
      i++;
    } else if (ch === "|") {
      cells.push(cell);
      cell = "";
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}

/** Whether a table line is the rule under a header (`| --- | :-: |`). */
export function isRuleLine(line: string): boolean {
  return splitCells(line.trim())?.every((c) => /^\s*:?-+:?\s*$/u.test(c)) ?? false;
}
