import { adfText } from "./adf.js";
import { statusOf } from "./render.js";
import { findAccount, type Site } from "./site.js";
import type { IssueRecord, JiraStore } from "./store.js";

/** One entry of a webhook's `changelog.items`, as Jira Cloud documents it. */
export interface ChangelogItem {
  readonly field: string;
  readonly fieldtype: "jira" | "custom";
  readonly fieldId: string;
  readonly from: string | null;
  readonly fromString: string | null;
  readonly to: string | null;
  readonly toString: string | null;
}

type Pair = readonly [id: string | null, text: string | null];

interface FieldDiff {
  readonly field: string;
  readonly fieldId: string;
  readonly custom?: boolean;
  readonly read: (i: IssueRecord) => Pair;
  /** Compares by this instead of the pair (a document whose text alone may not change). */
  readonly compare?: (i: IssueRecord) => string;
}

const same = (a: Pair, b: Pair): boolean => a[0] === b[0] && a[1] === b[1];
const text = (v: string | null): Pair => [null, v];
const account = (site: Site, id: string | null): Pair => [
  id,
  id === null ? null : (findAccount(site, id)?.displayName ?? id),
];
const named = (list: readonly { id: string; name: string }[], id: string | null): Pair => [
  id,
  id === null ? null : (list.find((x) => x.id === id)?.name ?? id),
];

/** The fields an issue's changelog reports, each read as Jira writes it (id and display text). */
function fieldDiffs(store: JiraStore): FieldDiff[] {
  const site = store.site;
  const issueKey = (id: number | null): string | null =>
    id === null ? null : (store.findIssue(String(id))?.key ?? String(id));
  return [
    { field: "summary", fieldId: "summary", read: (i) => text(i.summary) },
    {
      field: "description",
      fieldId: "description",
      read: (i) => text(i.description === null ? null : adfText(i.description)),
      compare: (i) => JSON.stringify(i.description),
    },
    {
      field: "issuetype",
      fieldId: "issuetype",
      read: (i) => named(site.issueTypes, i.issueTypeId),
    },
    {
      field: "status",
      fieldId: "status",
      read: (i) => [i.statusId, statusOf(site, i).name],
    },
    {
      field: "resolution",
      fieldId: "resolution",
      read: (i) => named(site.resolutions, i.resolutionId),
    },
    { field: "priority", fieldId: "priority", read: (i) => named(site.priorities, i.priorityId) },
    { field: "assignee", fieldId: "assignee", read: (i) => account(site, i.assigneeId) },
    { field: "reporter", fieldId: "reporter", read: (i) => account(site, i.reporterId) },
    {
      field: "labels",
      fieldId: "labels",
      read: (i) => text(i.labels.length === 0 ? null : [...i.labels].sort().join(" ")),
    },
    {
      field: "duedate",
      fieldId: "duedate",
      read: (i) => [i.duedate, i.duedate === null ? null : `${i.duedate} 00:00:00.0`],
    },
    {
      field: "Story Points",
      fieldId: site.storyPointsFieldId,
      custom: true,
      read: (i) => text(i.storyPoints === null ? null : String(i.storyPoints)),
    },
    {
      field: "Sprint",
      fieldId: site.sprintFieldId,
      custom: true,
      read: (i) =>
        i.sprintIds.length === 0
          ? [null, null]
          : [
              i.sprintIds.join(", "),
              i.sprintIds.map((id) => store.findSprint(id)?.name ?? String(id)).join(", "),
            ],
    },
    {
      field: "IssueParentAssociation",
      fieldId: "parent",
      read: (i) => [i.parentId === null ? null : String(i.parentId), issueKey(i.parentId)],
    },
    {
      field: "timespent",
      fieldId: "timespent",
      read: (i) => {
        const sum = i.worklogs.reduce((n, w) => n + w.timeSpentSeconds, 0);
        return text(i.worklogs.length === 0 ? null : String(sum));
      },
    },
  ];
}

/** What changed between two states of one issue, as changelog items (empty when nothing). */
export function issueChangelog(
  store: JiraStore,
  before: IssueRecord,
  after: IssueRecord,
): ChangelogItem[] {
  const items: ChangelogItem[] = [];
  for (const d of fieldDiffs(store)) {
    const was = d.read(before);
    const is = d.read(after);
    if (d.compare === undefined ? same(was, is) : d.compare(before) === d.compare(after)) continue;
    items.push({
      field: d.field,
      fieldtype: d.custom === true ? "custom" : "jira",
      fieldId: d.fieldId,
      from: was[0],
      fromString: was[1],
      to: is[0],
      toString: is[1],
    });
  }
  return items;
}
