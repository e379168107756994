import { z } from "zod";
import { PayloadInvalidError } from "../../core/errors.js";
import { parse } from "./requests.js";

/**
 * One page of a Project (v2) board's items, validated item by item: a page that cannot be read
 * (no item list, no page info) fails the board's read; an item of its own that fails validation
 * is set apart under its issue's number, with an error naming it, and the rest is read.
 */

export const OPERATION = "projectV2.items";

const rawValueSchema = z
  .object({
    __typename: z.string().optional(),
    number: z.number().nullish(),
    name: z.string().nullish(),
    optionId: z.string().nullish(),
    iterationId: z.string().nullish(),
    title: z.string().nullish(),
    startDate: z.string().nullish(),
    duration: z.number().nullish(),
    field: z.object({ id: z.string().optional() }).nullish(),
  })
  .nullable();

const rawItemSchema = z.object({
  id: z.string(),
  content: z.object({ number: z.number().int().positive().optional() }).nullable(),
  fieldValues: z.object({ nodes: z.array(rawValueSchema) }),
});

const rawPageSchema = z.object({
  node: z.object({
    items: z.object({
      pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
      nodes: z.array(z.unknown()),
    }),
  }),
});

export type RawValue = NonNullable<z.infer<typeof rawValueSchema>>;
export type RawItem = z.infer<typeof rawItemSchema>;

export interface ItemsPage {
  readonly items: readonly (RawItem & { readonly number: number })[];
  /** Items whose own payload fails validation, by their issue's number. */
  readonly unreadable: ReadonlyMap<number, PayloadInvalidError>;
  readonly next: string | null;
}

/** The issue number an item names, read without the schema (it may have failed it). */
function numberOf(raw: unknown): number | "none" | "unknown" {
  if (typeof raw !== "object" || raw === null) return "unknown";
  const content = (raw as { content?: unknown }).content;
  if (content === null) return "none";
  if (typeof content !== "object") return "unknown";
  if (!Object.hasOwn(content, "number")) return "none";
  const n = (content as { number?: unknown }).number;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : "unknown";
}

/** What a person reads about one item: which issue's item, what is wrong and where, what to do. */
function itemError(number: number, error: PayloadInvalidError): PayloadInvalidError {
  const what = error.message.replace(/^GitHub (\S+) answered an unexpected payload: /, "");
  return new PayloadInvalidError(
    `GitHub ${OPERATION} answered an unexpected payload: issue #${String(number)}'s project ` +
      `item: ${what}`,
    { system: "github", operation: OPERATION, id: String(number), status: error.status },
    {
      hint:
        `Open issue #${String(number)} on the project board and set its fields again (Status, ` +
        `Priority, Estimate, Iteration); if every item is broken, check what sits between you ` +
        `and GitHub (a proxy rewriting answers).`,
      cause: error,
    },
  );
}

/** An item whose issue cannot be told: the board cannot be read (its values would be lost). */
function unnamedItem(raw: unknown): PayloadInvalidError {
  const r = rawItemSchema.safeParse(raw);
  const where = r.success
    ? "content > number"
    : r.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(" > ") || "(root)"}: ${i.message}`)
        .join("; ");
  return new PayloadInvalidError(
    `GitHub ${OPERATION} answered an unexpected payload: a project item names no issue ` +
      `number it can be told by (${where})`,
    { system: "github", operation: OPERATION },
    {
      hint:
        "The board is read whole or not at all: check what sits between you and GitHub (a " +
        "proxy rewriting answers), then run again.",
    },
  );
}

/**
 * Reads one answer of the items query. Items that are no issue (a draft, a pull request) are left
 * out; an item that names no issue number it can be told by fails the whole read (its values
 * would be read as none, and an issue's values as cleared).
 */
export function readItemsPage(data: unknown): ItemsPage {
  const page = parse(rawPageSchema, data, { operation: OPERATION });
  const items: (RawItem & { number: number })[] = [];
  const unreadable = new Map<number, PayloadInvalidError>();
  for (const raw of page.node.items.nodes) {
    if (raw === null) continue;
    const number = numberOf(raw);
    if (number === "none") continue;
    if (number === "unknown") throw unnamedItem(raw);
    try {
      items.push({
        ...parse(rawItemSchema, raw, { operation: OPERATION, id: String(number) }),
        number,
      });
    } catch (error) {
      if (!(error instanceof PayloadInvalidError)) throw error;
      unreadable.set(number, itemError(number, error));
    }
  }
  const info = page.node.items.pageInfo;
  return { items, unreadable, next: info.hasNextPage ? info.endCursor : null };
}

export const ITEM_OPERATION = "projectV2.item";

/**
 * One item's values as `ITEM_VALUES` answers them; `undefined` when the item is gone from the
 * project (GitHub answers a null node, or an error the client maps to not found).
 */
export function readItemValues(data: unknown, number: number): RawItem | undefined {
  const answer = parse(z.object({ node: z.unknown().nullable() }), data, {
    operation: ITEM_OPERATION,
    id: String(number),
  });
  if (answer.node === null) return undefined;
  try {
    return parse(rawItemSchema, answer.node, { operation: ITEM_OPERATION, id: String(number) });
  } catch (error) {
    if (!(error instanceof PayloadInvalidError)) throw error;
    throw itemError(number, error);
  }
}
