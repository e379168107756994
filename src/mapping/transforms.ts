import type { MentionCodec } from "./mention-codec.js";
import { escapeMentions, restoreMentions } from "./mentions.js";

/**
 * The registry of named transforms a mapping rule may use (`transform: [name, …]`).
 * Each is a pure pair: `forward` on the way to the target, `inverse` on the way back. A transform
 * that loses information is still safe: the engine keeps the original value in metadata whenever
 * `inverse(forward(x))` is not `x`.
 */

/** One named transform. Values are `undefined` when the field is absent; both sides keep that. */
export interface Transform {
  readonly name: string;
  readonly description: string;
  readonly forward: (value: unknown) => unknown;
  readonly inverse: (value: unknown) => unknown;
  /** True when `inverse(forward(x))` is `x` for every value (no round-trip check needed). */
  readonly exact: boolean;
}

function onStrings(fn: (s: string) => string): (value: unknown) => unknown {
  return (value) => (typeof value === "string" ? fn(value) : value);
}

function numberToString(value: unknown): unknown {
  return typeof value === "number" ? String(value) : value;
}

function stringToNumber(value: unknown): unknown {
  if (typeof value !== "string" || value.trim() === "") return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

const TRANSFORM_LIST = [
  {
    name: "neutralize-mentions",
    description:
      "Makes `@login` and `#123` inert with an invisible word joiner (GitHub notifies and links nothing), never inside code or link destinations; restored exactly on the way back.",
    forward: onStrings((s) => escapeMentions(s)),
    inverse: onStrings((s) => restoreMentions(s)),
    exact: true,
  },
  {
    name: "number-to-string",
    description: "Writes a number as text (`3`, `0.5`) and reads it back as a number.",
    forward: numberToString,
    inverse: stringToNumber,
    exact: false,
  },
  {
    name: "no-spaces",
    description:
      "Replaces each run of whitespace with `_` (Jira labels cannot hold spaces). Lossy: the original travels in metadata unless the target side was edited.",
    forward: onStrings((s) => s.replace(/\s+/g, "_")),
    inverse: (value: unknown) => value,
    exact: false,
  },
  {
    name: "lowercase",
    description:
      "Lower-cases text. Lossy: the original travels in metadata unless the target side was edited.",
    forward: onStrings((s) => s.toLowerCase()),
    inverse: (value: unknown) => value,
    exact: false,
  },
] as const satisfies readonly Transform[];

/** Every transform name, for the schema and for error messages. */
export const TRANSFORM_NAMES = TRANSFORM_LIST.map((t) => t.name) as [
  (typeof TRANSFORM_LIST)[number]["name"],
  ...(typeof TRANSFORM_LIST)[number]["name"][],
];
export type TransformName = (typeof TRANSFORM_NAMES)[number];

/** The registry: name → transform. */
export const TRANSFORMS: ReadonlyMap<TransformName, Transform> = new Map(
  TRANSFORM_LIST.map((t) => [t.name, t]),
);

const identity = (value: unknown): unknown => value;

/** What the transforms of a description or a comment may depend on (the users, via mentions). */
export interface TextContext {
  readonly mentions?: MentionCodec | undefined;
}

/** A transform bound to the text context: `neutralize-mentions` may link matched users. */
function bound(name: TransformName, text: TextContext | undefined): Transform | undefined {
  const m = text?.mentions;
  if (name !== "neutralize-mentions" || m === undefined) return TRANSFORMS.get(name);
  return {
    name,
    description: TRANSFORMS.get(name)?.description ?? "",
    forward: onStrings((s) => m.neutralize.forward(s)),
    inverse: onStrings((s) => m.neutralize.inverse(s)),
    exact: m.exact,
  };
}

/**
 * Composes named transforms into one forward/inverse pair (inverse runs in reverse order). With a
 * text context (descriptions, comments), the mentions option's steps join in.
 */
export function composeTransforms(names: readonly TransformName[], text?: TextContext): Transform {
  const always = text?.mentions?.always;
  const list = [
    ...names.map((n) => bound(n, text)).filter((t) => t !== undefined),
    ...(always === undefined
      ? []
      : [
          {
            name: "mentions",
            description: "",
            forward: onStrings(always.forward),
            inverse: onStrings(always.inverse),
            exact: false,
          },
        ]),
  ];
  const name = names.join("+");
  const description = list.map((t) => t.description).join(" ");
  const exact = list.every((t) => t.exact);
  // No transform or a single one (the usual cases): its functions as they are, no reduce.
  if (list.length <= 1) {
    const only = list[0];
    return {
      name,
      description,
      forward: only?.forward ?? identity,
      inverse: only?.inverse ?? identity,
      exact,
    };
  }
  return {
    name,
    description,
    forward: (value) => list.reduce((v, t) => t.forward(v), value),
    inverse: (value) => list.reduceRight((v, t) => t.inverse(v), value),
    exact,
  };
}
