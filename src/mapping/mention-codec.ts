/**
 * Mentions between tinyPM and the target (pure). tinyPM writes `@login` as plain text; the
 * mapping's `mentions` option decides what that becomes on the target:
 *
 * - `inert` (the default): nobody is notified. GitHub gets the mention made inert by the
 *   `neutralize-mentions` transform; Jira keeps it as plain text (only a mention node notifies).
 * - `matched`: `@login` of a tinyPM user matched to a target user becomes a real mention of that
 *   user: `@their-github-login` on GitHub, a Jira `mention` node with their accountId (written as
 *   `[@Display Name](mention:accountId)` in the Markdown the Jira adapter converts). Unmatched
 *   names stay inert. On the way back, a mention of a matched target user reads as tinyPM
 *   `@login` again; other Jira mentions read as `@Display Name`.
 *
 * Code (fenced, indented, inline) and link destinations are never touched.
 */
import { escapeMentions, protectedRanges, restoreMentions, rewriteMentions } from "./mentions.js";
import type { MentionRef } from "./mentions.js";
import type { UserTable } from "./users.js";

export type MentionMode = "inert" | "matched";

/** The text steps the mentions option adds to descriptions and comments. */
export interface MentionCodec {
  /** Whether `neutralize.inverse(neutralize.forward(x))` is always `x` (mode inert). */
  readonly exact: boolean;
  /** GitHub's `neutralize-mentions`: make inert, or link matched users. */
  readonly neutralize: {
    readonly forward: (text: string, keep?: (ref: MentionRef) => boolean) => string;
    readonly inverse: (text: string) => string;
  };
  /** A step every description and comment passes through (Jira's mention syntax); else none. */
  readonly always?:
    | { readonly forward: (text: string) => string; readonly inverse: (text: string) => string }
    | undefined;
}

/** `[@Display Name](mention:accountId)`: a Jira mention node in the adapter's Markdown. */
export const JIRA_MENTION = /\[@([^\]\n]*)\]\(mention:([^()\s]+)\)/g;

/** The Markdown the Jira adapter reads as a mention node. */
export function jiraMention(accountId: string, displayName: string): string {
  const label = displayName.replace(/^@/, "").replace(/[\]\n]/g, " ");
  return `[@${label}](mention:${accountId})`;
}

/** The codec for a target, mode and user table. */
export function createMentionCodec(options: {
  readonly target: "github" | "jira";
  readonly mode: MentionMode;
  readonly users: UserTable;
}): MentionCodec {
  const { users } = options;
  const matched = options.mode === "matched";
  // Real matches only: a placeholder stands in for assignees, never in someone's words.
  const toTarget = new Map<string, { id: string; name: string }>();
  const toTinypm = new Map<string, string>();
  for (const [login, ref] of users.toTarget) {
    const tinypm = ref.id === undefined ? undefined : users.toTinypm.get(ref.id);
    if (ref.id === undefined || tinypm?.login !== login) continue;
    toTarget.set(login, { id: ref.id, name: ref.name ?? ref.login ?? ref.id });
    toTinypm.set(options.target === "github" ? ref.id.toLowerCase() : ref.id, login);
  }
  const forwardRef = (ref: MentionRef): string | undefined => {
    if (!matched || ref.sigil !== "@" || ref.wordStart === false) return undefined;
    const hit = toTarget.get(ref.name);
    if (hit === undefined) return undefined;
    return options.target === "github" ? `@${hit.id}` : jiraMention(hit.id, hit.name);
  };
  if (options.target === "github") {
    const back = (ref: MentionRef): string | undefined => {
      if (!matched || ref.sigil !== "@" || ref.wordStart === false) return undefined;
      const login = toTinypm.get(ref.name.toLowerCase());
      return login === undefined ? undefined : `@${login}`;
    };
    return {
      exact: !matched,
      neutralize: {
        forward: (text, keep) =>
          escapeMentions(text, {
            rewrite: (ref) => (keep?.(ref) === true ? `${ref.sigil}${ref.name}` : forwardRef(ref)),
          }),
        inverse: (text) => restoreMentions(matched ? rewriteMentions(text, back) : text),
      },
    };
  }
  return {
    exact: true,
    neutralize: { forward: (text) => escapeMentions(text), inverse: restoreMentions },
    always: {
      forward: (text) => (matched ? rewriteMentions(text, forwardRef) : text),
      inverse: (text) => readJiraMentions(text, (id) => (matched ? toTinypm.get(id) : undefined)),
    },
  };
}

/** Jira mention syntax outside code → `@tinypmLogin` for matched users, else `@Display Name`. */
function readJiraMentions(text: string, login: (id: string) => string | undefined): string {
  if (!text.includes("](mention:")) return text;
  const ranges = protectedRanges(text);
  return text.replace(JIRA_MENTION, (match: string, label: string, id: string, at: number) => {
    if (ranges.some(([s, e]) => at >= s && at < e)) return match;
    return `@${login(id) ?? label}`;
  });
}
