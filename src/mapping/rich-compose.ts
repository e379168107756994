/**
 * Applies a tinyPM edit of a description as the smallest change to the target's blocks (pure).
 *
 * The target's blocks, read back into tinyPM terms and joined, are the text tinyPM last agreed
 * with; a line diff against tinyPM's new text tells which blocks the edit left alone. Those keep
 * their rich form exactly as the target holds them; the text in between is new and is written
 * from tinyPM. A changed block whose rich content its text cannot carry is reported as lost.
 */
import { diffLines } from "diff";

/** A target block, in both terms. */
export interface ComposeBlock {
  /** The block's text as the target holds it (Markdown as written, or what ADF reads as). */
  readonly targetText: string;
  /** The same in tinyPM terms (the description rule's transforms undone). */
  readonly text: string;
  /** What rewriting it from text loses (see `RichBlock.lost`). */
  readonly lost: readonly string[];
}

export type ComposeSegment =
  | { readonly kind: "keep"; readonly index: number }
  | {
      readonly kind: "new";
      readonly text: string;
      readonly replaces: readonly number[];
      /** Where `text` starts in the new text. */
      readonly at: number;
    };

/** A changed block whose rich content cannot be placed, and what of it would be lost. */
export interface LostBlock {
  /** The start of the block's text, for people. */
  readonly excerpt: string;
  readonly what: readonly string[];
  /** Which unit (`block 2, row 3, cell 2`), for a unit parked under `richText: merge`. */
  readonly where?: string | undefined;
}

/**
 * A tinyPM change of one unit (a block, list item, table row or cell) kept back under `richText:
 * merge` because writing it would lose the target's rich content: the target keeps the unit as it
 * is, everything else is written. Texts in tinyPM terms.
 */
export interface ParkedUnit {
  /** Which unit, for people: `block 3`, `block 2, row 3, cell 2`. */
  readonly where: string;
  /** The unit's text as tinyPM has it now ("" for none). */
  readonly tinypm: string;
  /** The unit's text as the target holds it (read as text). */
  readonly target: string;
  /** What writing tinyPM's text would lose. */
  readonly what: readonly string[];
}

export interface BlockComposition {
  readonly segments: readonly ComposeSegment[];
  readonly kept: number;
  /** Target blocks replaced by new text (changed), and target blocks dropped with no text. */
  readonly rewritten: number;
  readonly removed: number;
  readonly lost: readonly LostBlock[];
}

interface Chunk {
  readonly oStart: number;
  readonly oEnd: number;
  readonly nStart: number;
}

/** The unchanged stretches of `before` and where they are in `after`. */
function equalChunks(before: string, after: string): Chunk[] {
  const chunks: Chunk[] = [];
  let o = 0;
  let n = 0;
  // A final newline on both sides, so that the last line compares like every other line.
  for (const part of diffLines(`${before}\n`, `${after}\n`)) {
    const len = part.value.length;
    if (part.added) n += len;
    else if (part.removed) o += len;
    else {
      chunks.push({ oStart: o, oEnd: o + len, nStart: n });
      o += len;
      n += len;
    }
  }
  return chunks;
}

/** Splits `next` into kept target blocks and new text, block by block. */
export function composeBlocks(
  blocks: readonly ComposeBlock[],
  separator: string,
  next: string,
): BlockComposition {
  const before = blocks.map((b) => b.text).join(separator);
  const chunks = equalChunks(before, next);
  const placed: { index: number; start: number; end: number }[] = [];
  let at = 0;
  blocks.forEach((block, index) => {
    const s = at;
    const e = at + block.text.length;
    at = e + separator.length;
    const c = chunks.find((k) => k.oStart <= s && e <= k.oEnd && (s < e || s < k.oEnd));
    if (c === undefined) return;
    const start = c.nStart + (s - c.oStart);
    const end = start + block.text.length;
    const last = placed.at(-1);
    if (last !== undefined && start < last.end) return;
    if (!separated(next, start, end, separator)) return;
    placed.push({ index, start, end });
  });
  const segments: ComposeSegment[] = [];
  const lost: LostBlock[] = [];
  let rewritten = 0;
  let removed = 0;
  let prevEnd = 0;
  let prevIndex = -1;
  const gap = (upTo: number, nextIndex: number, hasNext: boolean): void => {
    let text = next.slice(prevEnd, upTo);
    let at = prevEnd;
    if (separator !== "") {
      if (prevIndex >= 0 && text.startsWith(separator)) {
        text = text.slice(separator.length);
        at += separator.length;
      }
      if (hasNext && text.endsWith(separator)) text = text.slice(0, -separator.length);
    }
    const replaces: number[] = [];
    for (let i = prevIndex + 1; i < nextIndex; i++) replaces.push(i);
    if (text === "") {
      removed += replaces.length;
      return;
    }
    segments.push({ kind: "new", text, replaces, at });
    rewritten += replaces.length;
    for (const i of replaces) {
      const b = blocks[i];
      if (b !== undefined && b.lost.length > 0)
        lost.push({ excerpt: excerpt(b.text), what: b.lost });
    }
  };
  for (const p of placed) {
    gap(p.start, p.index, true);
    segments.push({ kind: "keep", index: p.index });
    prevEnd = p.end;
    prevIndex = p.index;
  }
  gap(next.length, blocks.length, false);
  return { segments, kept: placed.length, rewritten, removed, lost };
}

/** A kept block must stand between separators in the new text (not merged into a neighbour). */
function separated(text: string, start: number, end: number, separator: string): boolean {
  if (separator === "") return true;
  const before = start === 0 || text.slice(start - separator.length, start) === separator;
  const after = end === text.length || text.slice(end, end + separator.length) === separator;
  return before && after;
}

export function excerpt(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}
