import { json, noContent, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { GithubError, notFound, validationFailed } from "./errors.js";
import { objectBody, optNullableString, optString, optStringList, required } from "./input.js";
import { issueOr404, labelIds, sameList } from "./issue-ops.js";
import { paginate } from "./paging.js";
import { renderLabel, repoApiUrl } from "./render.js";
import { findLabel, touch, type IssueRecord, type LabelRecord, type Store } from "./store.js";

/** Repository labels (CRUD) and the labels of one issue (add, replace, remove, clear). */
export const labelRoutes: readonly RouteDef[] = [
  { method: "GET", pattern: "/repos/:owner/:repo/labels", handler: listLabels },
  { method: "POST", pattern: "/repos/:owner/:repo/labels", handler: createLabel, creates: true },
  { method: "GET", pattern: "/repos/:owner/:repo/labels/:name", handler: getLabel },
  { method: "PATCH", pattern: "/repos/:owner/:repo/labels/:name", handler: updateLabel },
  { method: "DELETE", pattern: "/repos/:owner/:repo/labels/:name", handler: deleteLabel },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/:number/labels", handler: issueLabels },
  {
    method: "POST",
    pattern: "/repos/:owner/:repo/issues/:number/labels",
    handler: addLabels,
    creates: true,
  },
  {
    method: "PUT",
    pattern: "/repos/:owner/:repo/issues/:number/labels",
    handler: setLabels,
    creates: true,
  },
  { method: "DELETE", pattern: "/repos/:owner/:repo/issues/:number/labels", handler: clearLabels },
  {
    method: "DELETE",
    pattern: "/repos/:owner/:repo/issues/:number/labels/:name",
    handler: removeLabel,
  },
];

const COLOR = /^[0-9a-fA-F]{6}$/;
const LABEL_DOCS = "https://docs.github.com/rest/issues/labels#create-a-label";

function labelOr404(store: Store, name: string | undefined): LabelRecord {
  const label = findLabel(store, name ?? "");
  if (!label) throw notFound();
  return label;
}

function listLabels(ctx: RequestContext): Reply {
  const page = paginate(ctx.store.labels, ctx.query, `${repoApiUrl(ctx.store)}/labels`);
  return json(
    200,
    page.items.map((l) => renderLabel(ctx.store, l)),
    page.link === undefined ? {} : { link: page.link },
  );
}

function getLabel(ctx: RequestContext): Reply {
  const label = labelOr404(ctx.store, ctx.params.name);
  return json(200, renderLabel(ctx.store, label), {
    "last-modified": new Date(label.updatedAt).toUTCString(),
  });
}

function invalid(field: string, value?: unknown): GithubError {
  return new GithubError(422, "Validation Failed", {
    errors: [
      { resource: "Label", code: "invalid", field, ...(value === undefined ? {} : { value }) },
    ],
    documentationUrl: LABEL_DOCS,
  });
}

function checkColor(color: string | undefined): string | undefined {
  if (color === undefined) return undefined;
  const bare = color.replace(/^#/, "");
  if (!COLOR.test(bare)) throw invalid("color");
  return bare;
}

function checkDescription(d: string | null | undefined): string | null | undefined {
  if (d !== null && d !== undefined && d.length > 100) throw invalid("description");
  return d;
}

function createLabel(ctx: RequestContext): Reply {
  const s = ctx.store;
  const b = objectBody(ctx.body);
  const name = required(b, "name", optString) ?? "";
  if (name.trim() === "") throw invalid("name");
  const color = checkColor(optString(b, "color")) ?? "ededed";
  const description = checkDescription(optNullableString(b, "description")) ?? null;
  if (findLabel(s, name)) {
    throw validationFailed({ resource: "Label", code: "already_exists", field: "name" });
  }
  const label: LabelRecord = {
    id: s.nextId("label"),
    name,
    color,
    description,
    isDefault: false,
    updatedAt: s.clock.now(),
  };
  s.labels.push(label);
  return json(201, renderLabel(s, label), {
    location: `${repoApiUrl(s)}/labels/${encodeURIComponent(name)}`,
  });
}

function updateLabel(ctx: RequestContext): Reply {
  const s = ctx.store;
  const label = labelOr404(s, ctx.params.name);
  const b = objectBody(ctx.body);
  const newName = optString(b, "new_name");
  const color = checkColor(optString(b, "color"));
  const description = checkDescription(optNullableString(b, "description"));
  if (newName !== undefined) {
    const clash = findLabel(s, newName);
    if (newName.trim() === "") throw invalid("name");
    if (clash && clash !== label) {
      throw validationFailed({ resource: "Label", code: "already_exists", field: "name" });
    }
    label.name = newName;
  }
  if (color !== undefined) label.color = color;
  if (description !== undefined) label.description = description;
  label.updatedAt = s.clock.now();
  return json(200, renderLabel(s, label));
}

function deleteLabel(ctx: RequestContext): Reply {
  const s = ctx.store;
  const label = labelOr404(s, ctx.params.name);
  s.labels = s.labels.filter((l) => l !== label);
  for (const issue of s.issues) {
    if (issue.labels.includes(label.id)) {
      issue.labels = issue.labels.filter((id) => id !== label.id);
      touch(s, issue);
    }
  }
  return noContent();
}

function issueLabelList(ctx: RequestContext, issue: IssueRecord): Reply {
  const rendered = issue.labels.flatMap((id) => {
    const l = ctx.store.labels.find((x) => x.id === id);
    return l ? [renderLabel(ctx.store, l)] : [];
  });
  return json(200, rendered);
}

function issueLabels(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  const page = paginate(
    issue.labels,
    ctx.query,
    `${repoApiUrl(ctx.store)}/issues/${issue.number}/labels`,
  );
  const reply = issueLabelList(ctx, { ...issue, labels: [...page.items] });
  return page.link === undefined ? reply : { ...reply, headers: { link: page.link } };
}

/** `{"labels": [...]}`, a bare array, or `{"labels": [{name}]}`; at least one for POST. */
function requestedLabels(body: unknown, min: number): string[] {
  const names = Array.isArray(body)
    ? optStringList({ labels: body }, "labels")
    : optStringList(objectBody(body), "labels");
  if (names === undefined || names.length < min) {
    throw validationFailed({ resource: "Label", code: "missing_field", field: "labels" });
  }
  return names;
}

function changeLabels(ctx: RequestContext, issue: IssueRecord, next: number[]): Reply {
  if (!sameList(next, issue.labels)) {
    issue.labels = next;
    touch(ctx.store, issue);
  }
  return issueLabelList(ctx, issue);
}

function addLabels(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  const added = labelIds(ctx.store, requestedLabels(ctx.body, 1));
  return changeLabels(ctx, issue, [
    ...issue.labels,
    ...added.filter((id) => !issue.labels.includes(id)),
  ]);
}

function setLabels(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  return changeLabels(
    ctx,
    issue,
    labelIds(ctx.store, requestedLabels(ctx.body ?? { labels: [] }, 0)),
  );
}

function clearLabels(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  changeLabels(ctx, issue, []);
  return noContent();
}

function removeLabel(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  const label = findLabel(ctx.store, ctx.params.name ?? "");
  if (!label || !issue.labels.includes(label.id)) {
    throw new GithubError(404, "Label does not exist", {
      documentationUrl: "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue",
    });
  }
  return changeLabels(
    ctx,
    issue,
    issue.labels.filter((id) => id !== label.id),
  );
}
