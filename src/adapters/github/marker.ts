import { withoutPersonalData } from "../../core/identity.js";
import type { ItemKind, JsonValue, Marker, SystemName } from "../../core/model.js";
import { hexHash } from "../../core/short-hash.js";

/** The prefix of every hidden block the tool writes into a GitHub body (version 2). */
const MARKER_TAG = "tinypm-sync:v2";
/** The tags this build reads: its own and the version-1 blocks of earlier releases. */
const READ_TAGS = "tinypm-sync:v[12]";

/** What an issue body's hidden block holds: the origin marker and the metadata. */
interface IssueMarkerBlock {
  readonly marker: Marker;
  readonly meta: Readonly<Record<string, JsonValue>>;
}

/** What a comment body's hidden block holds: enough to find a comment a rerun already wrote. */
interface CommentMarkerBlock {
  readonly job: string;
  readonly origin: SystemName;
  readonly originId: string;
  /** A content key: the same comment always gets the same key. */
  readonly key: string;
}

const SYSTEMS: readonly string[] = ["tinypm", "github", "jira", "memory"];
const KINDS: readonly string[] = ["story", "task"];
const BLOCK_RE = new RegExp(`\\n*<!-- ${READ_TAGS} (\\{.*?\\}) -->\\s*$`, "s");

/** JSON that can never contain `-->` (or any `<`, `>`, `&`), so it is safe inside an HTML comment. */
function safeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026");
}

function block(json: string): string {
  return `<!-- ${MARKER_TAG} ${json} -->`;
}

function join(text: string, hidden: string): string {
  return text === "" ? hidden : `${text}\n\n${hidden}`;
}

/** The body for an issue: the description, then the hidden block at the end. */
export function withIssueMarker(description: string, data: IssueMarkerBlock): string {
  const { job, origin, originKind, originId, instance, project, tinypmId, base, target, undone } =
    data.marker;
  const json = {
    job,
    origin,
    originKind,
    originId,
    ...(instance !== undefined && { instance }),
    ...(project !== undefined && { project }),
    ...(tinypmId !== undefined && { tinypmId }),
    ...(base !== undefined && { base }),
    ...(target !== undefined && { target }),
    ...(undone !== undefined && { undone }),
    meta: withoutPersonalData(data.meta as JsonValue),
  };
  return join(description, block(safeJson(json)));
}

/** The body for a comment: the text, then the small hidden block. */
export function withCommentMarker(text: string, data: CommentMarkerBlock): string {
  return join(text, block(safeJson(data)));
}

/** Splits a body into the visible text and the parsed JSON of its hidden block, if any. */
function splitBody(body: string | null | undefined): { text: string; json?: unknown } {
  const raw = body ?? "";
  const m = BLOCK_RE.exec(raw);
  if (m?.[1] === undefined) return { text: raw };
  try {
    return { text: raw.slice(0, m.index), json: JSON.parse(m[1]) as unknown };
  } catch {
    return { text: raw };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads an issue body: the description without the block, the marker and the metadata. */
export function parseIssueBody(body: string | null | undefined): {
  description: string;
  block?: IssueMarkerBlock;
} {
  const { text, json } = splitBody(body);
  if (!isRecord(json)) return { description: text };
  const {
    job,
    origin,
    originKind,
    originId,
    instance,
    project,
    tinypmId,
    base,
    target,
    undone,
    meta,
  } = json;
  if (
    typeof job !== "string" ||
    typeof origin !== "string" ||
    !SYSTEMS.includes(origin) ||
    typeof originKind !== "string" ||
    !KINDS.includes(originKind) ||
    typeof originId !== "string"
  ) {
    return { description: text };
  }
  const marker: Marker = {
    job,
    origin: origin as SystemName,
    originKind: originKind as ItemKind,
    originId,
    ...(typeof instance === "string" && { instance }),
    ...(typeof project === "string" && { project }),
    ...(typeof tinypmId === "string" && { tinypmId }),
    ...(isDigests(base) && { base }),
    ...(isDigests(target) && { target }),
    ...(typeof undone === "string" && { undone }),
  };
  const metadata = isRecord(meta) ? (meta as Record<string, JsonValue>) : {};
  return { description: text, block: { marker, meta: metadata } };
}

function isDigests(v: unknown): v is Record<string, string> {
  return isRecord(v) && Object.values(v).every((d) => typeof d === "string");
}

/** Reads a comment body: the text without the block, and the comment marker. */
export function parseCommentBody(body: string | null | undefined): {
  text: string;
  block?: CommentMarkerBlock;
} {
  const { text, json } = splitBody(body);
  if (!isRecord(json)) return { text };
  const { job, origin, originId, key } = json;
  if (
    typeof job !== "string" ||
    typeof origin !== "string" ||
    !SYSTEMS.includes(origin) ||
    typeof originId !== "string" ||
    typeof key !== "string"
  ) {
    return { text };
  }
  return { text, block: { job, origin: origin as SystemName, originId, key } };
}

/** The stable key of a marker, for indexes. */
export function markerKey(m: Marker): string {
  return [m.job, m.origin, m.originKind, m.originId, m.instance ?? ""].join("\u0000");
}

/** The content key of a comment: same author, time and text → same key. */
export function commentKey(parts: { author: string; createdAt: string; body: string }): string {
  return hexHash("sha256", `${parts.author}\u0000${parts.createdAt}\u0000${parts.body}`, 16);
}
