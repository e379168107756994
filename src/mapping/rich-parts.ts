/**
 * Composes a tinyPM edit into the parts of one changed block (pure): a list's items and nested
 * lists, a table's rows, a row's cells. Parts the edit left alone keep their rich form; only
 * changed or new parts are written from tinyPM's text. New text that does not fit among the parts
 * (not an item at the list's depth, a row with another number of cells) gives `undefined`: the
 * caller rewrites the whole block instead.
 *
 * Parts are whole lines (cells: parts of one line). The transforms between tinyPM's terms and the
 * target's read a line differently out of its block (a nested item indented four spaces reads as
 * code), so they run on whole blocks, as before, and the parts take their lines from the result.
 */
import type { RichBlock, RichParts, RichPiece } from "../core/model.js";
import { splitCells } from "../core/table-cells.js";
import {
  composeBlocks,
  excerpt,
  type ComposeSegment,
  type LostBlock,
  type ParkedUnit,
} from "./rich-compose.js";

/** A changed block in the three forms composing needs. */
export interface PartsInput {
  readonly block: RichBlock;
  /** The block as the target holds it, in tinyPM terms (its text with the transforms undone). */
  readonly tinypm: string;
  /** The block's new text from tinyPM. */
  readonly next: string;
  /** The same in target terms (the transforms applied), line for line. */
  readonly written: string;
  /**
   * Where the block is (`block 2`) when changed parts whose rich content would be lost are to be
   * left as they are (listed in `parked`) instead of written.
   */
  readonly park?: string | undefined;
}

export interface PartsComposition {
  /** The block kept with its parts composed. */
  readonly piece: RichPiece;
  /** The block's new text in target terms. */
  readonly text: string;
  readonly kept: number;
  readonly rewritten: number;
  readonly removed: number;
  readonly lost: readonly LostBlock[];
  readonly parked: readonly ParkedUnit[];
}

const PART_NAME = { lines: "item", rows: "row", cells: "cell" } as const;

/** The block's parts composed with its new text, or undefined when it does not fit them. */
export function composeParts(input: PartsInput): PartsComposition | undefined {
  const parts = input.block.parts;
  if (parts === undefined) return undefined;
  if (lineCount(input.next) !== lineCount(input.written)) return undefined;
  return parts.kind === "cells" ? composeCells(input, parts) : composeUnits(input, parts);
}

function composeUnits(input: PartsInput, parts: RichParts): PartsComposition | undefined {
  const norm = parts.kind === "rows" ? looseLines : (s: string): string => s;
  const tinypm = linesOf(input.tinypm, parts.blocks);
  if (tinypm === undefined) return undefined;
  const units = parts.blocks.map((b, i) => ({
    targetText: b.text,
    text: norm(tinypm[i] ?? ""),
    lost: b.lost,
  }));
  const normNext = norm(input.next);
  const c = composeBlocks(units, parts.separator, normNext);
  const accepts = new RegExp(`^(?:${parts.accepts})$`, "u");
  const nextLines = input.next.split("\n");
  const writtenLines = input.written.split("\n");
  const pieces: RichPiece[] = [];
  const texts: string[] = [];
  const lost: LostBlock[] = [];
  const parked: ParkedUnit[] = [];
  const where = (i: number): string => `${input.park ?? ""}, ${PART_NAME[parts.kind]} ${i + 1}`;
  let kept = 0;
  let rewritten = 0;
  let removed = c.removed;
  const segments =
    input.park === undefined
      ? c.segments
      : c.segments.flatMap((seg) => oneByOne(seg, units, parts.separator));
  for (const seg of segments) {
    if (seg.kind === "keep") {
      const b = parts.blocks[seg.index];
      if (b === undefined) return undefined;
      pieces.push({ keep: b.rich });
      texts.push(b.text);
      kept++;
      continue;
    }
    // The new lines as tinyPM wrote them (rows compare with their padding ignored).
    const first = lineCount(normNext.slice(0, seg.at)) - 1;
    const count = lineCount(seg.text);
    const next = nextLines.slice(first, first + count).join("\n");
    const written = writtenLines.slice(first, first + count).join("\n");
    const only = seg.replaces.length === 1 ? seg.replaces[0] : undefined;
    const part = only === undefined ? undefined : parts.blocks[only];
    const sub =
      part === undefined || only === undefined
        ? undefined
        : composeParts({
            block: part,
            tinypm: tinypm[only] ?? "",
            next,
            written,
            park: input.park === undefined ? undefined : where(only),
          });
    if (sub !== undefined) {
      pieces.push(sub.piece);
      texts.push(sub.text);
      kept += sub.kept;
      rewritten += sub.rewritten;
      removed += sub.removed;
      lost.push(...sub.lost);
      parked.push(...sub.parked);
      continue;
    }
    if (
      input.park !== undefined &&
      seg.replaces.some((i) => (parts.blocks[i]?.lost.length ?? 0) > 0)
    ) {
      // Kept back: the replaced parts stay as the target holds them.
      for (const i of seg.replaces) {
        const b = parts.blocks[i];
        if (b === undefined) return undefined;
        pieces.push({ keep: b.rich });
        texts.push(b.text);
      }
      parked.push({
        where: seg.replaces.map(where).join("; "),
        tinypm: next,
        target: seg.replaces.map((i) => tinypm[i] ?? "").join("\n"),
        what: seg.replaces.flatMap((i) => parts.blocks[i]?.lost ?? []),
      });
      kept += seg.replaces.length;
      continue;
    }
    if (!accepts.test(written)) return undefined;
    pieces.push({ text: written });
    texts.push(written);
    rewritten += seg.replaces.length;
    for (const i of seg.replaces) {
      const b = parts.blocks[i];
      if (b !== undefined && b.lost.length > 0)
        lost.push({ excerpt: excerpt(tinypm[i] ?? ""), what: b.lost });
    }
  }
  const text = texts.join(parts.separator);
  const piece = { within: input.block.rich, parts: pieces, text };
  return { piece, text, kept, rewritten, removed, lost, parked };
}

/**
 * A change of several neighbouring parts as one change per part, when its lines pair up with
 * theirs (as many lines as they have): so that one part kept back does not hold back the others.
 */
function oneByOne(
  seg: ComposeSegment,
  units: readonly { readonly text: string }[],
  separator: string,
): ComposeSegment[] {
  if (seg.kind === "keep" || seg.replaces.length < 2 || separator !== "\n") return [seg];
  const lines = seg.text.split("\n");
  const counts = seg.replaces.map((i) => lineCount(units[i]?.text ?? ""));
  if (counts.reduce((a, b) => a + b, 0) !== lines.length) return [seg];
  const out: ComposeSegment[] = [];
  let line = 0;
  let at = seg.at;
  for (const [k, i] of seg.replaces.entries()) {
    const n = counts[k] ?? 1;
    const text = lines.slice(line, line + n).join("\n");
    out.push(
      text === units[i]?.text
        ? { kind: "keep", index: i }
        : { kind: "new", text, replaces: [i], at },
    );
    line += n;
    at += text.length + 1;
  }
  return out;
}

/** A table row's cells, by position: unchanged cells stay as they are, changed ones are new text. */
function composeCells(input: PartsInput, parts: RichParts): PartsComposition | undefined {
  const [oldLine = "", ...oldRest] = input.tinypm.split("\n");
  const [line = "", ...rest] = input.next.split("\n");
  const [writtenLine = ""] = input.written.split("\n");
  // A header row's rule line must stay a rule line.
  if (looseLines(rest.join("\n")) !== looseLines(oldRest.join("\n"))) return undefined;
  const before = splitCells(oldLine);
  const now = splitCells(line);
  const written = splitCells(writtenLine);
  const n = parts.blocks.length;
  if (before?.length !== n || now?.length !== n || written?.length !== n) return undefined;
  const accepts = new RegExp(`^(?:${parts.accepts})$`, "u");
  const pieces: RichPiece[] = [];
  const lost: LostBlock[] = [];
  const parked: ParkedUnit[] = [];
  const own = splitCells(input.block.text.split("\n")[0] ?? "");
  const cells = [...written];
  let kept = 0;
  let rewritten = 0;
  for (const [i, cell] of parts.blocks.entries()) {
    const was = (before[i] ?? "").trim();
    if (was === (now[i] ?? "").trim()) {
      pieces.push({ keep: cell.rich });
      kept++;
      continue;
    }
    if (input.park !== undefined && cell.lost.length > 0 && own?.length === n) {
      // Kept back: the cell stays as the target holds it.
      pieces.push({ keep: cell.rich });
      cells[i] = own[i] ?? "";
      parked.push({
        where: `${input.park}, cell ${i + 1}`,
        tinypm: (now[i] ?? "").trim(),
        target: was,
        what: cell.lost,
      });
      kept++;
      continue;
    }
    const text = (written[i] ?? "").trim();
    if (!accepts.test(text)) return undefined;
    pieces.push({ text });
    rewritten++;
    if (cell.lost.length > 0) lost.push({ excerpt: excerpt(was), what: cell.lost });
  }
  // The row as tinyPM wrote it (its padding), in target terms; a kept-back cell as it was.
  const row =
    parked.length === 0
      ? writtenLine
      : rewritten === 0
        ? (input.block.text.split("\n")[0] ?? "")
        : `| ${cells.map((c) => c.trim()).join(" | ")} |`;
  const text = [row, ...input.block.text.split("\n").slice(1)].join("\n");
  const piece = { within: input.block.rich, parts: pieces, text };
  return { piece, text, kept, rewritten, removed: 0, lost, parked };
}

/** `text`'s lines shared out among the parts, as many to each as its own text has. */
function linesOf(text: string, blocks: readonly RichBlock[]): string[] | undefined {
  const lines = text.split("\n");
  const out: string[] = [];
  let at = 0;
  for (const b of blocks) {
    const n = lineCount(b.text);
    out.push(lines.slice(at, at + n).join("\n"));
    at += n;
  }
  return at === lines.length ? out : undefined;
}

function lineCount(text: string): number {
  return text.split("\n").length;
}

/** Lines with runs of spaces as one, and a table's rule line as `| --- | --- |`. */
function looseLines(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const l = line.replace(/ {2,}/g, " ").trimEnd();
      return /^\|[\s:|-]+\|$/u.test(l) && l.includes("-") ? l.replace(/-+/g, "---") : l;
    })
    .join("\n");
}
