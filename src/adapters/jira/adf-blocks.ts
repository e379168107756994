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
export function richDescriptionOf(
  doc: unknown,
  /** What rewriting a block loses beyond ADF ⇄ Markdown (Data Center's wiki). */
  moreLost?: (node: AdfNode, text: string) => readonly string[],
): RichDescription | undefined {
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
        lost: moreLost === undefined ? lostOf(node, text) : lostWith(node, text, moreLost),
        ...(parts !== undefined && { parts }),
      };
    }),
  };
}

function lostWith(
  node: AdfNode,
  text: string,
  more: (node: AdfNode, text: string) => readonly string[],
): string[] {
  return [...new Set([...lostOf(node, text), ...more(node, text)])];
}

/**
 * The document for kept blocks (as read), new Markdown text (converted) and lists or tables
 * kept with only their changed items, rows or cells rewritten.
 */
export function docFromPieces(pieces: readonly RichPiece[]): AdfDoc {
  return { type: "doc", version: 1, content: buildPieces(pieces) };
}
