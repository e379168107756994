/**
 * Runs a line-preserving text transform on a whole Markdown text and takes the lines of one part
 * from the result (pure). A part read alone can mean something else than in its text: a nested
 * list item indented four spaces reads as code, where mention hygiene does not apply.
 */

/** How many line breaks `text` holds. */
export function breaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * `part` (the text of `whole` starting at offset `at`, from a line's start) transformed in the
 * context of the whole text: the same lines of `fn(whole)`; `fn(part)` when `fn` changes how many
 * lines the text has or `part` does not start a line.
 */
export function inContext(
  whole: string,
  at: number,
  part: string,
  fn: (text: string) => string,
): string {
  if (at > 0 && whole[at - 1] !== "\n") return fn(part);
  if (part === "" || whole.slice(at, at + part.length) !== part) return fn(part);
  const out = fn(whole);
  if (breaks(out) !== breaks(whole)) return fn(part);
  const first = breaks(whole.slice(0, at));
  const count = breaks(part);
  const lines = out.split("\n");
  return part.endsWith("\n")
    ? `${lines.slice(first, first + count).join("\n")}\n`
    : lines.slice(first, first + count + 1).join("\n");
}

/** `whole` transformed and shared out among its parts (which joined give `whole`), line for line. */
export function partsInContext(parts: readonly string[], fn: (text: string) => string): string[] {
  const whole = parts.join("");
  const out = fn(whole);
  if (
    breaks(out) !== breaks(whole) ||
    parts.some((p, i) => i < parts.length - 1 && !p.endsWith("\n"))
  )
    return parts.map(fn);
  const lines = out.split("\n");
  let first = 0;
  return parts.map((p) => {
    if (p === "") return p;
    const count = breaks(p);
    const text = p.endsWith("\n")
      ? `${lines.slice(first, first + count).join("\n")}\n`
      : lines.slice(first, first + count + 1).join("\n");
    first += count;
    return text;
  });
}
