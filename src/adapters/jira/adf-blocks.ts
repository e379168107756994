import type { JsonValue, RichDescription, RichPiece } from "../../core/model.js";
import type { AdfDoc, AdfNode } from "./adf.js";
import { renderBlock } from "./adf-render.js";
import { lostOf } from "./adf-loss.js";
import { buildPieces } from "./adf-build.js";
import { partsOf } from "./adf-parts.js";

/**
 * A Jira description as blocks (its top-level ADF nodes), each with the Markdown it reads as and
 * what rewriting it from that Markdown would lose; and the way back from kept blocks and new
 * text to one ADF document. Pure.
 */
export function richDescriptionOf(doc: unknown): RichDescription | undefined {
  if (doc === null || typeof doc !== "object") return undefined;
  const content = (doc as AdfNode).content ?? [];
  if (content.length === 0) return undefined;
  return {
    separator: "\n\n",
    blocks: content.map((node) => {
      const text = renderBlock(node);
      const parts = partsOf(node, 0);
      return {
        text,
        rich: node as unknown as JsonValue,
        lost: lostOf(node, text),
        ...(parts !== undefined && { parts }),
      };
    }),
  };
}

/**
 * The document for kept blocks (as read), new Markdown text (converted) and lists or tables
 * kept with only their changed items, rows or cells rewritten.
 */
export function docFromPieces(pieces: readonly RichPiece[]): AdfDoc {
  return { type: "doc", version: 1, content: buildPieces(pieces) };
}
