/**
 * Jira Data Center's wire dialect, as pure translations between it and the Cloud shapes the rest
 * of the adapter speaks: REST v2 paths instead of v3, `/search` with `startAt` instead of
 * `/search/jql` with page tokens, wiki strings instead of ADF documents, users by `name` instead
 * of `accountId`, and sprint values read back as Java `toString()` strings. dc-transport.ts
 * applies them to every request and answer; nothing else in the adapter knows it talks to DC.
 */
import { markdownToAdf, type AdfNode } from "./adf.js";
import { parseWikiBlocks } from "./wiki-parse.js";
import { renderWiki } from "./wiki-render.js";

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isDoc(value: unknown): value is { type: "doc"; content: AdfNode[] } {
  return isRecord(value) && value.type === "doc" && Array.isArray(value.content);
}

/** What a block read from wiki was: its source text and the constructs ADF could not hold. */
export interface WikiSource {
  readonly source: string;
  readonly literal: readonly string[];
}

/**
 * The wiki source of each block read, keyed by the block's ADF: a block written back unchanged
 * is written as its own source, byte for byte (a person's wiki text is never reformatted), and
 * what the block holds that ADF kept as literal text is known when its losses are reported.
 */
export type WikiSources = Map<string, WikiSource>;

/** Wiki text → an ADF document, remembering each block's source. */
export function wikiToDoc(
  wiki: string,
  sources: WikiSources,
): { type: "doc"; version: 1; content: AdfNode[] } {
  const blocks = parseWikiBlocks(wiki);
  for (const b of blocks)
    sources.set(JSON.stringify(b.node), { source: b.source, literal: b.literal });
  return { type: "doc", version: 1, content: blocks.map((b) => b.node) };
}

/** An ADF document → wiki text: known blocks as their source, others rendered. */
export function docToWiki(doc: { content: readonly AdfNode[] }, sources: WikiSources): string {
  return doc.content
    .map((node) => sources.get(JSON.stringify(node))?.source ?? renderWiki([node]).wiki)
    .filter((t) => t !== "")
    .join("\n\n");
}

/**
 * What rewriting a block read from wiki from its Markdown `text` loses beyond what ADF ⇄
 * Markdown loses: the wiki constructs the block held that ADF had no place for (`{color}`,
 * images, citations, anchors) and what the Markdown's ADF cannot be written as in wiki.
 */
export function wikiBlockLost(node: AdfNode, text: string, sources: WikiSources): string[] {
  const literal = sources.get(JSON.stringify(node))?.literal ?? [];
  const rendered = renderWiki(markdownToAdf(text).content).lost;
  return [...new Set([...literal, ...rendered])];
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

/**
 * Where a DC search goes on: an offset into the query, and past the search platform's
 * `maxResultWindow` a narrower query instead (a clause after the last issue read — `key > "K"`,
 * or `updated >= ms` with the keys already read at that instant skipped).
 */
export interface SearchCursor {
  readonly offset: number;
  readonly clause?: string | undefined;
  readonly skip?: readonly string[] | undefined;
}

/** The search a DC request was made for, so its answer can name the next page. */
export interface SearchAsked {
  readonly jql: string;
  readonly cursor: SearchCursor;
  readonly maxResults: number | undefined;
}

const KEYSET = "k:";

/** A cursor as Cloud's opaque page token (a plain offset stays a number). */
export function encodeCursor(cursor: SearchCursor): string {
  if (cursor.clause === undefined) return String(cursor.offset);
  return KEYSET + Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** A page token as a cursor (no token, or one not ours, starts at 0). */
export function decodeCursor(token: unknown): SearchCursor {
  if (typeof token !== "string") return { offset: 0 };
  if (!token.startsWith(KEYSET)) {
    const offset = Number(token);
    return { offset: Number.isInteger(offset) && offset >= 0 ? offset : 0 };
  }
  try {
    const raw = JSON.parse(Buffer.from(token.slice(KEYSET.length), "base64url").toString()) as Json;
    return {
      offset: typeof raw.offset === "number" ? raw.offset : 0,
      ...(typeof raw.clause === "string" && { clause: raw.clause }),
      ...(Array.isArray(raw.skip) && { skip: raw.skip.filter((k) => typeof k === "string") }),
    };
  } catch {
    return { offset: 0 };
  }
}

const ORDER_BY = /\s+ORDER\s+BY\s+/i;

/** The query's first sort field and direction (`key`, `asc` when it names none). */
function primaryOrder(jql: string): { field: string; asc: boolean } | undefined {
  const order = jql.split(ORDER_BY)[1];
  if (order === undefined) return undefined;
  const [field = "", direction = "asc"] = (order.split(",")[0] ?? "").trim().split(/\s+/);
  return { field: field.toLowerCase(), asc: direction.toLowerCase() !== "desc" };
}

/** `jql` narrowed by `clause`, its ORDER BY kept. */
export function narrowJql(jql: string, clause: string | undefined): string {
  if (clause === undefined) return jql;
  const [where = "", order] = jql.split(ORDER_BY);
  const narrowed = where.trim() === "" ? clause : `${where} AND ${clause}`;
  return order === undefined ? narrowed : `${narrowed} ORDER BY ${order}`;
}

const DATE_ORDERS = new Set(["updated", "created"]);

/** A Cloud `/search/jql` request body as DC's `/search` body (the page token is the cursor). */
export function searchRequest(body: unknown): Json {
  const b = isRecord(body) ? body : {};
  const cursor = decodeCursor(b.nextPageToken);
  const jql = typeof b.jql === "string" ? b.jql : "";
  // The next cursor needs the sort field's value of the page's last issue.
  const order = primaryOrder(jql)?.field;
  const fields =
    Array.isArray(b.fields) && order !== undefined && DATE_ORDERS.has(order)
      ? [...new Set([...(b.fields as unknown[]), order])]
      : b.fields;
  return {
    jql: narrowJql(jql, cursor.clause),
    startAt: cursor.offset,
    ...(b.maxResults !== undefined && { maxResults: b.maxResults }),
    ...(fields !== undefined && { fields }),
    ...(b.properties !== undefined && { properties: b.properties }),
    ...(b.expand !== undefined && { expand: b.expand }),
  };
}

/** What a DC search request asked, read from the Cloud body it was made from. */
export function searchAsked(body: unknown): SearchAsked {
  const b = isRecord(body) ? body : {};
  return {
    jql: typeof b.jql === "string" ? b.jql : "",
    cursor: decodeCursor(b.nextPageToken),
    maxResults: typeof b.maxResults === "number" ? b.maxResults : undefined,
  };
}

const keyOf = (issue: unknown): string =>
  isRecord(issue) && typeof issue.key === "string" ? issue.key : "";

function dateOf(issue: unknown, field: string): number {
  const fields = isRecord(issue) && isRecord(issue.fields) ? issue.fields : {};
  const value = fields[field];
  return typeof value === "string" ? Date.parse(value) : Number.NaN;
}

/**
 * The cursor after a page whose next offset would pass the window: a clause after the last
 * issue (ascending key or date order); undefined when the order allows none (offsets go on).
 */
function keysetAfter(asked: SearchAsked, issues: readonly unknown[]): SearchCursor | undefined {
  const order = primaryOrder(asked.jql) ?? { field: "key", asc: true };
  const last = issues.at(-1);
  if (last === undefined || !order.asc) return undefined;
  if (order.field === "key" || order.field === "issuekey")
    return { offset: 0, clause: `key > "${keyOf(last)}"` };
  if (!DATE_ORDERS.has(order.field)) return undefined;
  const at = dateOf(last, order.field);
  if (!Number.isFinite(at)) return undefined;
  const clause = `${order.field} >= ${at}`;
  const here = issues.filter((i) => dateOf(i, order.field) === at).map(keyOf);
  // The same instant again (a window full of one instant): keep skipping what came before.
  const before = asked.cursor.clause === clause ? (asked.cursor.skip ?? []) : [];
  return { offset: 0, clause, skip: [...new Set([...before, ...here])] };
}

/**
 * DC's `/search` page as Cloud's `/search/jql` page: `{issues, nextPageToken?, isLast}`. Issues
 * the cursor skips (read before at the same instant) are left out; past `maxResultWindow` the
 * token narrows the query instead of paging deeper.
 */
export function searchAnswer(data: unknown, asked?: SearchAsked): Json {
  const d = isRecord(data) ? data : {};
  const raw = Array.isArray(d.issues) ? d.issues : [];
  const skip = new Set(asked?.cursor.skip ?? []);
  const issues = skip.size === 0 ? raw : raw.filter((i) => !skip.has(keyOf(i)));
  const startAt = typeof d.startAt === "number" ? d.startAt : 0;
  const total = typeof d.total === "number" ? d.total : startAt + raw.length;
  const next = startAt + raw.length;
  const isLast = raw.length === 0 || next >= total;
  if (isLast) return { issues, isLast };
  const window = typeof d.maxResultWindow === "number" ? d.maxResultWindow : undefined;
  const pageSize = asked?.maxResults ?? (typeof d.maxResults === "number" ? d.maxResults : 50);
  const deep = window !== undefined && next + pageSize > window;
  const keyset = deep && asked !== undefined ? keysetAfter(asked, raw) : undefined;
  const cursor: SearchCursor = keyset ?? { ...asked?.cursor, offset: next };
  return { issues, isLast, nextPageToken: encodeCursor(cursor) };
}

const CHANGELOG_PATH = /^\/rest\/api\/3\/issue\/([^/?]+)\/changelog$/;

/**
 * Cloud's `GET /issue/{key}/changelog` (paged) as DC's only way to a changelog: `GET
 * /issue/{key}?expand=changelog&fields=status`. Undefined when `url` is not a changelog read.
 */
export function changelogRequest(url: string): { url: string; params: Json } | undefined {
  const match = CHANGELOG_PATH.exec(url);
  if (match === null) return undefined;
  return {
    url: `/rest/api/2/issue/${match[1]}`,
    params: { expand: "changelog", fields: "status" },
  };
}

/** DC's expanded changelog (`changelog.histories`) as Cloud's page of `{startAt}` onwards. */
export function changelogAnswer(data: unknown, startAt: number, maxResults: number): Json {
  const changelog = isRecord(data) && isRecord(data.changelog) ? data.changelog : {};
  const all = Array.isArray(changelog.histories) ? changelog.histories : [];
  const values = all.slice(startAt, startAt + Math.max(1, maxResults));
  return {
    startAt,
    maxResults,
    total: all.length,
    isLast: startAt + values.length >= all.length,
    values,
  };
}

const CREATE_META_PATH = /^\/rest\/api\/2\/issue\/createmeta\/[^/]+\/issuetypes(\/[^/?]+)?(?:\?|$)/;

/**
 * DC's per-project create metadata (`{startAt, maxResults, total, isLast, values}`) as Cloud's
 * pages (`issueTypes`, or `fields` for one issue type), so the create defaults (the priority an
 * issue gets when a create leaves it out) are read on DC too. Other answers pass unchanged.
 */
export function createMetaAnswer(url: string, data: unknown): unknown {
  const match = CREATE_META_PATH.exec(url);
  if (match === null || !isRecord(data) || !Array.isArray(data.values)) return data;
  const { values, ...page } = data;
  return { ...page, [match[1] === undefined ? "issueTypes" : "fields"]: values };
}

/**
 * An operation as the adapter names it (Cloud's paths) as Data Center serves it, for messages:
 * `GET /rest/api/3/myself` → `GET /rest/api/2/myself`, `/search/jql` → `/search`.
 */
export function dcOperationName(operation: string): string {
  return operation
    .replace("/rest/api/3/search/jql", "/rest/api/2/search")
    .replace("/rest/api/3/", "/rest/api/2/");
}
