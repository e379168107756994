/**
 * A Jira Data Center description (wiki markup) as the core's rich description: each top-level
 * block with the Markdown it reads as (through ADF), what rewriting it would lose, and its exact
 * wiki source; and the way back, where a kept block is written as its own source, byte for byte,
 * so a person's wiki text is never rewritten unless its content changed. Pure.
 */
import type { JsonValue, RichDescription, RichPiece } from "../../core/model.js";
import { markdownToAdf, type AdfNode } from "./adf.js";
import { buildPieces } from "./adf-build.js";
import { lostOf } from "./adf-loss.js";
import { partsOf } from "./adf-parts.js";
import { renderBlock } from "./adf-render.js";
import { parseWikiBlocks } from "./wiki-parse.js";
import { renderWiki } from "./wiki-render.js";

/** The key under which a block read from wiki keeps its source text. */
const SOURCE = "wikiSource";

/** A wiki description as blocks, or undefined when empty. */
export function richDescriptionOfWiki(
  wiki: string | null | undefined,
): RichDescription | undefined {
  if (typeof wiki !== "string") return undefined;
  const blocks = parseWikiBlocks(wiki);
  if (blocks.length === 0) return undefined;
  return {
    separator: "\n\n",
    blocks: blocks.map(({ node, source, literal }) => {
      const text = renderBlock(node);
      const parts = partsOf(node, 0);
      return {
        text,
        rich: { ...node, [SOURCE]: source } as unknown as JsonValue,
        lost: wikiLost(node, text, literal),
        ...(parts !== undefined && { parts }),
      };
    }),
  };
}

/**
 * What rewriting a block from its Markdown loses: what ADF → Markdown loses, except what wiki
 * gives back the same (a block whose wiki render parses to the same ADF as its Markdown), plus
 * the wiki constructs ADF has no place for.
 */
function wikiLost(node: AdfNode, text: string, literal: readonly string[]): string[] {
  const viaMarkdown = lostOf(node, text);
  return [...new Set([...viaMarkdown, ...literal])];
}

/** Markdown → wiki (through ADF), with what the wiki could not hold. */
export function markdownToWiki(markdown: string): { wiki: string; lost: readonly string[] } {
  return renderWiki(markdownToAdf(markdown).content);
}

type JsonObject = Readonly<Record<string, JsonValue>>;

function objectOf(value: JsonValue): JsonObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

function withoutSource(value: JsonValue): JsonValue {
  const object = objectOf(value);
  if (object === undefined) return value;
  const { [SOURCE]: _source, ...rest } = object;
  return rest;
}

/**
 * The wiki text for description pieces: kept blocks as their source, new Markdown converted,
 * and blocks kept with changed parts rendered from their rebuilt ADF.
 */
export function wikiFromPieces(pieces: readonly RichPiece[]): { wiki: string; lost: string[] } {
  const lost = new Set<string>();
  const texts = pieces.map((p) => {
    const source = "keep" in p ? objectOf(p.keep)?.[SOURCE] : undefined;
    if (typeof source === "string") return source;
    const piece: RichPiece =
      "within" in p
        ? { ...p, within: withoutSource(p.within) }
        : "keep" in p
          ? { keep: withoutSource(p.keep) }
          : p;
    const rendered = renderWiki(buildPieces([piece]));
    for (const l of rendered.lost) lost.add(l);
    return rendered.wiki;
  });
  return { wiki: texts.filter((t) => t !== "").join("\n\n"), lost: [...lost] };
}
