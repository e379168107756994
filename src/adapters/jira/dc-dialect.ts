/**
 * Jira Data Center's wire dialect, as pure translations between it and the Cloud shapes the rest
 * of the adapter speaks: REST v2 paths instead of v3, `/search` with `startAt` instead of
 * `/search/jql` with page tokens, wiki strings instead of ADF documents, users by `name` instead
 * of `accountId`, and sprint values read back as Java `toString()` strings. dc-transport.ts
 * applies them to every request and answer; nothing else in the adapter knows it talks to DC.
 */
import type { AdfNode } from "./adf.js";
import { parseWikiBlocks } from "./wiki-parse.js";
import { renderWiki } from "./wiki-render.js";

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isDoc(value: unknown): value is { type: "doc"; content: AdfNode[] } {
  return isRecord(value) && value.type === "doc" && Array.isArray(value.content);
}

/**
 * The wiki source of each block read, keyed by the block's ADF: a block written back unchanged
 * is written as its own source, byte for byte (a person's wiki text is never reformatted).
 */
export type WikiSources = Map<string, string>;

/** Wiki text → an ADF document, remembering each block's source. */
export function wikiToDoc(
  wiki: string,
  sources: WikiSources,
): { type: "doc"; version: 1; content: AdfNode[] } {
  const blocks = parseWikiBlocks(wiki);
  for (const b of blocks) sources.set(JSON.stringify(b.node), b.source);
  return { type: "doc", version: 1, content: blocks.map((b) => b.node) };
}

/** An ADF document → wiki text: known blocks as their source, others rendered. */
export function docToWiki(doc: { content: readonly AdfNode[] }, sources: WikiSources): string {
  return doc.content
    .map((node) => sources.get(JSON.stringify(node)) ?? renderWiki([node]).wiki)
    .filter((t) => t !== "")
    .join("\n\n");
}

const TEXT_KEYS = new Set(["description", "body", "comment", "environment"]);
const USER_KEYS = new Set(["assignee", "reporter", "author", "updateAuthor"]);

/** Entity property values are the tool's own JSON: never translated either way. */
const OPAQUE_KEYS = new Set(["properties"]);

/** A request body in DC's dialect: documents as wiki, `{accountId}` users as `{name}`. */
export function outbound(value: unknown, sources: WikiSources, key?: string): unknown {
  if (key !== undefined && OPAQUE_KEYS.has(key)) return value;
  if (isDoc(value) && key !== undefined && TEXT_KEYS.has(key)) return docToWiki(value, sources);
  if (Array.isArray(value)) return value.map((v) => outbound(v, sources, key));
  if (!isRecord(value)) return value;
  if (key !== undefined && USER_KEYS.has(key) && typeof value.accountId === "string")
    return { name: value.accountId };
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      // `update.description: [{set: doc}]` keeps the field's name for its operations.
      outbound(v, sources, (k === "set" || k === "add") && key !== undefined ? key : k),
    ]),
  );
}

const SPRINT_PREFIX = /^com\.atlassian\.greenhopper\.service\.sprint\.Sprint@[0-9a-f]+\[/;

/** Whether a value reads as GreenHopper's Sprint `toString()`. */
export function isSprintString(value: unknown): value is string {
  return typeof value === "string" && SPRINT_PREFIX.test(value) && value.endsWith("]");
}

const SPRINT_KEYS = [
  "id",
  "rapidViewId",
  "state",
  "name",
  "startDate",
  "endDate",
  "completeDate",
  "activatedDate",
  "sequence",
  "goal",
  "synced",
  "autoStartStop",
  "incompleteIssuesDestinationId",
];

/**
 * A sprint `toString()` as the Agile API's object. Values may hold commas (names, goals), so a
 * value runs until the next `,key=` of a known key, not to the next comma.
 */
export function parseSprintString(text: string): Json | undefined {
  const inner = text.replace(SPRINT_PREFIX, "").slice(0, -1);
  const values: Record<string, string> = {};
  const at = (key: string, from: number): number => {
    const probe = from === 0 ? `${key}=` : `,${key}=`;
    return inner.startsWith(probe, from) ? from : -1;
  };
  let pos = 0;
  let current: string | undefined;
  let start = 0;
  while (pos <= inner.length) {
    const key = SPRINT_KEYS.find((k) => at(k, pos) === pos);
    if (key !== undefined || pos === inner.length) {
      if (current !== undefined) values[current] = inner.slice(start, pos);
      if (key === undefined) break;
      current = key;
      start = pos + (pos === 0 ? 0 : 1) + key.length + 1;
      pos = start;
      continue;
    }
    pos++;
  }
  const id = Number(values.id);
  if (!Number.isInteger(id)) return undefined;
  const value = (k: string): string | undefined =>
    values[k] === undefined || values[k] === "<null>" ? undefined : values[k];
  return {
    id,
    name: value("name") ?? "",
    state: (value("state") ?? "").toLowerCase(),
    boardId: Number(value("rapidViewId")),
    goal: value("goal") ?? "",
    ...(value("startDate") !== undefined && { startDate: value("startDate") }),
    ...(value("endDate") !== undefined && { endDate: value("endDate") }),
    ...(value("completeDate") !== undefined && { completeDate: value("completeDate") }),
  };
}

function isDcUser(value: Json): boolean {
  return typeof value.name === "string" && typeof value.key === "string" && "displayName" in value;
}

/** An answer in Cloud's shapes: wiki → documents, DC users with an `accountId` (their name), sprints as objects. */
export function inbound(value: unknown, sources: WikiSources, key?: string): unknown {
  if (key !== undefined && OPAQUE_KEYS.has(key)) return value;
  if (typeof value === "string" && key !== undefined && TEXT_KEYS.has(key))
    return wikiToDoc(value, sources);
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isSprintString))
      return value.map((v) => parseSprintString(v) ?? v);
    return value.map((v) => inbound(v, sources, key));
  }
  if (!isRecord(value)) return value;
  const entries = Object.entries(value).map(([k, v]) => [k, inbound(v, sources, k)] as const);
  const out = Object.fromEntries(entries);
  if (isDcUser(value)) out.accountId = value.name;
  return out;
}

/** A Cloud `/search/jql` request body as DC's `/search` body (the page token is the offset). */
export function searchRequest(body: unknown): Json {
  const b = isRecord(body) ? body : {};
  const token = typeof b.nextPageToken === "string" ? Number(b.nextPageToken) : 0;
  return {
    jql: b.jql,
    startAt: Number.isInteger(token) ? token : 0,
    ...(b.maxResults !== undefined && { maxResults: b.maxResults }),
    ...(b.fields !== undefined && { fields: b.fields }),
    ...(b.properties !== undefined && { properties: b.properties }),
    ...(b.expand !== undefined && { expand: b.expand }),
  };
}

/** DC's `/search` page as Cloud's `/search/jql` page: `{issues, nextPageToken?, isLast}`. */
export function searchAnswer(data: unknown): Json {
  const d = isRecord(data) ? data : {};
  const issues = Array.isArray(d.issues) ? d.issues : [];
  const startAt = typeof d.startAt === "number" ? d.startAt : 0;
  const total = typeof d.total === "number" ? d.total : startAt + issues.length;
  const next = startAt + issues.length;
  const isLast = issues.length === 0 || next >= total;
  return { issues, isLast, ...(!isLast && { nextPageToken: String(next) }) };
}
