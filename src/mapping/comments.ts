/**
 * Comments: a copied comment starts with a line naming the tinyPM author and date, followed by a
 * hidden JSON note with the exact author and timestamp, so the way back restores them exactly.
 */
import type { Comment, CommentDraft, UserRef } from "../core/model.js";
import { composeTransforms, type TextContext, type TransformName } from "./transforms.js";
import type { UserLookup } from "./user-lookup.js";
import { cleanUser, isRecord, isUserRef } from "./values.js";

export interface CommentCodec {
  toTarget(comment: Comment): CommentDraft;
  toTinypm(comment: Comment): CommentDraft;
}

const NOTE = /<!-- tinypm-sync:comment (\{.*\}) -->$/;

/** A tinyPM timestamp (ISO without zone, milliseconds) for a zoned ISO timestamp. */
export function toTinypmTimestamp(iso: string): string {
  if (!/(Z|[+-]\d\d:?\d\d)$/.test(iso)) return iso;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().slice(0, 23);
}

/** A zoned ISO timestamp for a tinyPM one (tinyPM gives none; read as UTC). */
export function toZonedTimestamp(iso: string): string {
  return /(Z|[+-]\d\d:?\d\d)$/.test(iso) || !/^\d{4}-\d\d-\d\dT/.test(iso) ? iso : `${iso}Z`;
}

/** JSON safe inside an HTML comment: every `-` escaped, so `-->` cannot occur. */
function hiddenJson(value: unknown): string {
  return JSON.stringify(value).replace(/-/g, "\\u002d");
}

/**
 * Who wrote a comment, as a note may say it: the tinyPM login and user id only — never an email
 * or a full name (`undefined` when neither is known: the visible line then names the author).
 */
function noteAuthor(author: UserRef): UserRef | undefined {
  const out: { id?: string; login?: string } = {};
  if (author.login !== undefined) out.login = author.login;
  if (author.id !== undefined) out.id = author.id;
  return out.login === undefined && out.id === undefined ? undefined : out;
}

/** The name shown on the visible line: the login when known, else the display name tinyPM gave. */
function shownName(author: UserRef): string {
  return (author.login ?? author.name ?? author.id ?? "someone").replace(/\s+/g, " ");
}

const SHOWN = /^\*\*(.*?)\*\* wrote in tinyPM on /;

function header(comment: Comment, author: UserRef, visible: (s: string) => string): string {
  const when = comment.createdAt.replace("T", " ").slice(0, 16);
  // A display-name-only author is named on the visible line; the note repeats the name only
  // when the line cannot show it exactly (runs of blanks), so nothing is lost on the way back.
  const shown = shownName(author);
  const who =
    noteAuthor(author) ??
    (author.name !== undefined && author.name !== shown ? { name: author.name } : undefined);
  const note = hiddenJson({ ...(who && { author: who }), createdAt: comment.createdAt });
  return `**${visible(shown)}** wrote in tinyPM on ${when}: <!-- tinypm-sync:comment ${note} -->`;
}

function readNote(
  firstLine: string,
  back: (s: string) => string,
): { author: UserRef; createdAt: string } | undefined {
  const m = NOTE.exec(firstLine);
  if (m?.[1] === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(m[1]);
    if (!isRecord(v) || typeof v.createdAt !== "string") return undefined;
    if (isUserRef(v.author)) return { author: v.author, createdAt: v.createdAt };
    // No author in the note: the author was known by display name only, shown on the line.
    const shown = SHOWN.exec(firstLine)?.[1];
    if (v.author === undefined && shown !== undefined)
      return { author: { name: back(shown) }, createdAt: v.createdAt };
  } catch {
    // Not our note (edited by hand): treat the comment as a native one.
  }
  return undefined;
}

/** Builds the comment codec of a mapping. */
export function createCommentCodec(options: {
  readonly header: boolean;
  readonly transform: readonly TransformName[];
  readonly users: UserLookup;
  /** The mentions option's steps for comment bodies. */
  readonly text?: TextContext | undefined;
}): CommentCodec {
  const t = composeTransforms(options.transform, options.text);
  const out = (s: string): string => t.forward(s) as string;
  const back = (s: string): string => t.inverse(s) as string;
  const { users } = options;
  return {
    toTarget(comment) {
      const author = users.toTarget(comment.author, true) ?? cleanUser(comment.author);
      const body = out(comment.body);
      const known = users.complete(comment.author);
      return {
        author,
        createdAt: toZonedTimestamp(comment.createdAt),
        body: options.header ? `${header(comment, known, out)}\n\n${body}` : body,
      };
    },
    toTinypm(comment) {
      const nl = comment.body.indexOf("\n");
      const note = readNote(nl < 0 ? comment.body : comment.body.slice(0, nl), back);
      if (note !== undefined) {
        const rest = nl < 0 ? "" : comment.body.slice(nl + 1).replace(/^\n/, "");
        const author =
          note.author.login === undefined && note.author.id === undefined
            ? cleanUser(note.author)
            : users.complete(note.author);
        return { author, createdAt: note.createdAt, body: back(rest) };
      }
      const author = users.toTinypm(comment.author, true) ?? {
        name: comment.author.name ?? comment.author.login ?? comment.author.id ?? "unknown",
      };
      return {
        author,
        createdAt: toTinypmTimestamp(comment.createdAt),
        body: back(comment.body),
      };
    },
  };
}
