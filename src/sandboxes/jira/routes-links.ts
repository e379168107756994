import type { Version3Models } from "jira.js";
import { adfProblem, type AdfDocument } from "./adf.js";
import {
  badRequest,
  fieldErrors,
  bodyObject,
  isRecord,
  noContent,
  notFound,
  ok,
  type RequestContext,
  type RouteDef,
} from "./context.js";
import type { IssueRecord, JiraStore, LinkRecord } from "./store.js";

const API = "/rest/api/3";

/** Jira's default link types. */
const LINK_TYPES = [
  { id: "10000", name: "Blocks", inward: "is blocked by", outward: "blocks" },
  { id: "10001", name: "Cloners", inward: "is cloned by", outward: "clones" },
  { id: "10002", name: "Duplicate", inward: "is duplicated by", outward: "duplicates" },
  { id: "10003", name: "Relates", inward: "relates to", outward: "relates to" },
] as const;

function renderType(origin: string, id: string): Version3Models.IssueLinkType {
  const t = LINK_TYPES.find((x) => x.id === id) ?? LINK_TYPES[3];
  return { ...t, self: `${origin}${API}/issueLinkType/${t.id}` };
}

function ref(origin: string, issue: IssueRecord): Version3Models.LinkedIssue {
  return { id: String(issue.id), key: issue.key, self: `${origin}${API}/issue/${issue.id}` };
}

/** The `issuelinks` field of an issue: each link shows the other issue on its side. */
export function renderIssueLinks(
  origin: string,
  store: JiraStore,
  issue: IssueRecord,
): Version3Models.IssueLink[] {
  return store.links().flatMap((link): Version3Models.IssueLink[] => {
    const base = {
      id: String(link.id),
      self: `${origin}${API}/issueLink/${link.id}`,
      type: renderType(origin, link.typeId),
    };
    const inward = store.findIssue(String(link.inwardId));
    const outward = store.findIssue(String(link.outwardId));
    if (inward === undefined || outward === undefined) return [];
    if (link.inwardId === issue.id) return [{ ...base, outwardIssue: ref(origin, outward) }];
    if (link.outwardId === issue.id) return [{ ...base, inwardIssue: ref(origin, inward) }];
    return [];
  });
}

function linkedIssue(ctx: RequestContext, value: unknown, side: string): IssueRecord {
  const r = isRecord(value) ? (value.key ?? value.id) : undefined;
  const issue =
    typeof r === "string" || typeof r === "number" ? ctx.store.findIssue(String(r)) : undefined;
  if (issue === undefined)
    throw notFound(`The ${side} issue does not exist or you do not have permission to see it.`);
  return issue;
}

/** `POST /issueLink`: 201 with an empty body; a duplicate link is accepted and not repeated. */
function createLink(ctx: RequestContext) {
  const body = bodyObject(ctx);
  const typeRef = isRecord(body.type) ? body.type : {};
  const type = LINK_TYPES.find(
    (t) =>
      t.id === String(typeRef.id) || t.name.toLowerCase() === String(typeRef.name).toLowerCase(),
  );
  if (type === undefined)
    throw notFound("No issue link type with name or id given in the request.");
  const inward = linkedIssue(ctx, body.inwardIssue, "inward");
  const outward = linkedIssue(ctx, body.outwardIssue, "outward");
  const exists = ctx.store
    .links()
    .some((l) => l.typeId === type.id && l.inwardId === inward.id && l.outwardId === outward.id);
  const comment = linkComment(body.comment);
  if (comment !== undefined) {
    const at = ctx.store.now();
    const id = ctx.store.nextCommentId();
    outward.comments.push({
      id,
      authorId: ctx.user.accountId,
      body: comment,
      created: at,
      updated: at,
    });
    ctx.store.touch(outward);
  }
  if (!exists) {
    ctx.store.addLink({ typeId: type.id, inwardId: inward.id, outwardId: outward.id });
    ctx.store.touch(inward);
    ctx.store.touch(outward);
  }
  return { status: 201 };
}

/** The optional `comment.body` of a link, added to the outward ("from") issue even for a duplicate. */
function linkComment(value: unknown): AdfDocument | undefined {
  // Jira Cloud takes `"comment": null` (sent by clients that always serialise the key) as none.
  if (value === undefined || value === null) return undefined;
  const body = isRecord(value) ? value.body : undefined;
  if (adfProblem(body) !== undefined) throw fieldErrors({ comment: "Comment body is not valid!" });
  return body as AdfDocument;
}

function findLink(ctx: RequestContext): LinkRecord {
  const link = ctx.store.links().find((l) => String(l.id) === ctx.params.linkId);
  if (link === undefined)
    throw notFound(`No issue link with id '${ctx.params.linkId ?? ""}' exists.`);
  return link;
}

function getLink(ctx: RequestContext) {
  const link = findLink(ctx);
  const inward = ctx.store.findIssue(String(link.inwardId));
  const outward = ctx.store.findIssue(String(link.outwardId));
  if (inward === undefined || outward === undefined)
    throw badRequest("The link's issues are gone.");
  return ok({
    id: String(link.id),
    type: renderType(ctx.origin, link.typeId),
    inwardIssue: ref(ctx.origin, inward),
    outwardIssue: ref(ctx.origin, outward),
  });
}

function deleteLink(ctx: RequestContext) {
  const link = findLink(ctx);
  ctx.store.removeLink(link.id);
  for (const id of [link.inwardId, link.outwardId]) {
    const issue = ctx.store.findIssue(String(id));
    if (issue !== undefined) ctx.store.touch(issue);
  }
  return noContent();
}

export const LINK_ROUTES: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: `${API}/issueLinkType`,
    handler: (ctx) => ok({ issueLinkTypes: LINK_TYPES.map((t) => renderType(ctx.origin, t.id)) }),
  },
  { method: "POST", pattern: `${API}/issueLink`, handler: createLink },
  { method: "GET", pattern: `${API}/issueLink/:linkId`, handler: getLink },
  { method: "DELETE", pattern: `${API}/issueLink/:linkId`, handler: deleteLink },
];
