/**
 * Writes a tinyPM description onto a target item as the smallest change: blocks the edit did not
 * touch keep the target's form (ADF nodes and marks on Jira, Markdown as written on GitHub), only
 * changed or new blocks come from tinyPM. Mention hygiene applies to those new blocks only, and
 * a mention that was live in a block a person wrote stays live when the block is rewritten.
 */
import type { RichPiece, WorkItem } from "../core/model.js";
import { escapeMentions, liveMentions, type MentionRef } from "./mentions.js";
import { markdownBlocks } from "./markdown-blocks.js";
import {
  composeBlocks,
  excerpt,
  type ComposeBlock,
  type LostBlock,
  type ParkedUnit,
} from "./rich-compose.js";
import { composeParts } from "./rich-parts.js";
import { inContext, partsInContext } from "./text-lines.js";
import type { FieldRule } from "./schema.js";
import { appendSummary, stripSummary } from "./time-entries.js";
import {
  composeTransforms,
  TRANSFORMS,
  type TextContext,
  type TransformName,
} from "./transforms.js";

export type { LostBlock, ParkedUnit } from "./rich-compose.js";

/** The description to write, and how much of the target's own form it keeps. */
export interface DescriptionComposition {
  /** The whole description in target terms (with the time summary, where the mapping adds one). */
  readonly text: string | undefined;
  /** For a target with a rich form: kept blocks and new text, for the adapter. */
  readonly pieces?: readonly RichPiece[] | undefined;
  readonly kept: number;
  readonly rewritten: number;
  readonly removed: number;
  /** Changed blocks whose rich content the new text cannot carry (and which are written). */
  readonly lost: readonly LostBlock[];
  /** With `park`: the changed units left as the target holds them, because of their rich content. */
  readonly parked: readonly ParkedUnit[];
}

export interface DescriptionOptions {
  readonly rule: FieldRule | undefined;
  /** Whether the mapping appends a time summary to the description. */
  readonly summaryOn: boolean;
  /** The summary block for a set of entries (undefined for none). */
  readonly summary: (item: WorkItem) => string | undefined;
  /** The mentions option's steps. */
  readonly text?: TextContext | undefined;
}

/**
 * The description of `next` (a tinyPM item) composed onto `target`'s blocks, or `undefined` when
 * the description does not map to the target's description as text. With `park`, a changed unit
 * whose rich content its new text cannot carry is not written: the target's unit stays as it is
 * and is listed in `parked` (`richText: merge`); every other change is written.
 */
export function composeDescription(
  o: DescriptionOptions,
  target: WorkItem,
  next: WorkItem,
  park = false,
): DescriptionComposition | undefined {
  const rule = o.rule;
  if (rule?.to !== "description" || rule.map !== undefined || rule.default !== undefined)
    return undefined;
  const names = rule.transform ?? [];
  const back = composeTransforms(names, o.text);
  const inverse = (s: string): string => asText(back.inverse(s), s);
  const rich = target.richDescription;
  const own =
    o.summaryOn && rich === undefined ? stripSummary(target.description) : target.description;
  const own0 = own ?? "";
  const raws = rich === undefined ? markdownBlocks(own0) : [];
  // Markdown blocks read in their text's context (a nested item alone would read as code).
  const blocks: ComposeBlock[] =
    rich === undefined
      ? partsInContext(raws, inverse).map((text, i) => ({
          targetText: raws[i] ?? "",
          text,
          lost: [],
        }))
      : rich.blocks.map((b) => ({ targetText: b.text, text: inverse(b.text), lost: b.lost }));
  const separator = rich?.separator ?? "";
  const nextText = next.description ?? "";
  const c = composeBlocks(blocks, separator, nextText);
  // Mentions live in a replaced block stay live (a Markdown block read in its text's context).
  const starts: number[] = [];
  raws.reduce((at, raw) => (starts.push(at), at + raw.length), 0);
  const liveIn = (i: number): string[] => {
    const s = starts[i];
    const own = blocks[i]?.targetText ?? "";
    return s === undefined ? liveMentions(own) : liveMentions(own0, s, s + own.length);
  };
  const write = (text: string, replaced: readonly number[], at: number): string => {
    const live = new Set(replaced.flatMap(liveIn));
    const fn = (s: string): string => forward(names, s, live, o.text);
    return rich === undefined ? inContext(nextText, at, text, fn) : fn(text);
  };
  const texts: string[] = [];
  const pieces: RichPiece[] = [];
  const lost: LostBlock[] = [];
  const parked: ParkedUnit[] = [];
  let { kept, rewritten, removed } = c;
  for (const seg of c.segments) {
    if (seg.kind === "keep") {
      texts.push(blocks[seg.index]?.targetText ?? "");
      const node = rich?.blocks[seg.index]?.rich;
      if (node !== undefined) pieces.push({ keep: node });
      continue;
    }
    // One changed list or table: only its changed items, rows or cells are rewritten.
    const text = write(seg.text, seg.replaces, seg.at);
    const at = seg.replaces.length === 1 ? (seg.replaces[0] ?? -1) : -1;
    const block = rich?.blocks[at];
    const sub =
      block === undefined
        ? undefined
        : composeParts({
            block,
            tinypm: blocks[at]?.text ?? "",
            next: seg.text,
            written: text,
            park: park ? `block ${at + 1}` : undefined,
          });
    if (sub !== undefined) {
      texts.push(sub.text);
      pieces.push(sub.piece);
      kept += sub.kept;
      rewritten += sub.rewritten - 1;
      removed += sub.removed;
      lost.push(...sub.lost);
      parked.push(...sub.parked);
      continue;
    }
    if (park && seg.replaces.some((i) => (blocks[i]?.lost.length ?? 0) > 0)) {
      // Kept back: the replaced blocks stay as the target holds them.
      for (const i of seg.replaces) {
        texts.push(blocks[i]?.targetText ?? "");
        const node = rich?.blocks[i]?.rich;
        if (node !== undefined) pieces.push({ keep: node });
      }
      parked.push({
        where: seg.replaces.map((i) => `block ${i + 1}`).join(", "),
        tinypm: seg.text,
        target: seg.replaces.map((i) => blocks[i]?.text ?? "").join(separator),
        what: seg.replaces.flatMap((i) => blocks[i]?.lost ?? []),
      });
      kept += seg.replaces.length;
      rewritten -= seg.replaces.length;
      continue;
    }
    texts.push(text);
    pieces.push({ text });
    for (const i of seg.replaces) {
      const b = blocks[i];
      if (b !== undefined && b.lost.length > 0)
        lost.push({ excerpt: excerpt(b.text), what: b.lost });
    }
  }
  const body = texts.join(separator);
  const summary = o.summaryOn ? o.summary(next) : undefined;
  if (summary !== undefined) pieces.push({ text: summary });
  return {
    text: appendSummary(body === "" ? undefined : body, summary),
    pieces: rich === undefined ? undefined : pieces,
    kept,
    rewritten,
    removed,
    lost,
    parked,
  };
}

/** The rule's transforms on new text; mentions live in the replaced blocks stay live. */
function forward(
  names: readonly TransformName[],
  text: string,
  live: ReadonlySet<string>,
  ctx: TextContext | undefined,
): string {
  const keep = (ref: MentionRef): boolean => live.has(`${ref.sigil}${ref.name}`);
  const m = ctx?.mentions;
  const out = names.reduce((v, n) => {
    if (n === "neutralize-mentions")
      return m !== undefined
        ? m.neutralize.forward(v, keep)
        : escapeMentions(v, {
            rewrite: (ref) => (keep(ref) ? `${ref.sigil}${ref.name}` : undefined),
          });
    return asText(TRANSFORMS.get(n)?.forward(v), v);
  }, text);
  return m?.always === undefined ? out : m.always.forward(out);
}

function asText(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}
