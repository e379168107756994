/**
 * Comments: a copied comment starts with a line naming the tinyPM author and date, followed by a
 * hidden JSON note with the exact author and timestamp, so the way back restores them exactly.
 */
import type { Comment, CommentDraft, UserRef } from "../core/model.js";
import { composeTransforms, type TransformName } from "./transforms.js";
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

function displayName(author: UserRef): string {
  return (author.name ?? author.login ?? author.id ?? "someone").replace(/\s+/g, " ");
}

function header(comment: Comment, visible: (s: string) => string): string {
  const when = comment.createdAt.replace("T", " ").slice(0, 16);
  const note = hiddenJson({ author: cleanUser(comment.author), createdAt: comment.createdAt });
  return `**${visible(displayName(comment.author))}** wrote in tinyPM on ${when}: <!-- tinypm-sync:comment ${note} -->`;
}

function readNote(firstLine: string): { author: UserRef; createdAt: string } | undefined {
  const m = NOTE.exec(firstLine);
  if (m?.[1] === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(m[1]);
    if (isRecord(v) && isUserRef(v.author) && typeof v.createdAt === "string") {
      return { author: v.author, createdAt: v.createdAt };
    }
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
}): CommentCodec {
  const t = composeTransforms(options.transform);
  const out = (s: string): string => t.forward(s) as string;
  const back = (s: string): string => t.inverse(s) as string;
  const { users } = options;
  return {
    toTarget(comment) {
      const author = users.toTarget(comment.author, true) ?? cleanUser(comment.author);
      const body = out(comment.body);
      return {
        author,
        createdAt: toZonedTimestamp(comment.createdAt),
        body: options.header ? `${header(comment, out)}\n\n${body}` : body,
      };
    },
    toTinypm(comment) {
      const nl = comment.body.indexOf("\n");
      const note = readNote(nl < 0 ? comment.body : comment.body.slice(0, nl));
      if (note !== undefined) {
        const rest = nl < 0 ? "" : comment.body.slice(nl + 1).replace(/^\n/, "");
        const author =
          note.author.login === undefined ? cleanUser(note.author) : users.complete(note.author);
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
