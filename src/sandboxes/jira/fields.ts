import type { Version3Models } from "jira.js";
import type { Site } from "./site.js";

type SystemField = [id: string, name: string, schema: Version3Models.JsonType | undefined];

const SYSTEM: readonly SystemField[] = [
  ["summary", "Summary", { type: "string", system: "summary" }],
  ["description", "Description", { type: "string", system: "description" }],
  ["issuetype", "Issue Type", { type: "issuetype", system: "issuetype" }],
  ["project", "Project", { type: "project", system: "project" }],
  ["status", "Status", { type: "status", system: "status" }],
  [
    "statuscategorychangedate",
    "Status Category Changed",
    { type: "datetime", system: "statuscategorychangedate" },
  ],
  ["priority", "Priority", { type: "priority", system: "priority" }],
  ["labels", "Labels", { type: "array", items: "string", system: "labels" }],
  ["assignee", "Assignee", { type: "user", system: "assignee" }],
  ["reporter", "Reporter", { type: "user", system: "reporter" }],
  ["creator", "Creator", { type: "user", system: "creator" }],
  ["created", "Created", { type: "datetime", system: "created" }],
  ["updated", "Updated", { type: "datetime", system: "updated" }],
  ["resolution", "Resolution", { type: "resolution", system: "resolution" }],
  ["resolutiondate", "Resolved", { type: "datetime", system: "resolutiondate" }],
  ["duedate", "Due date", { type: "date", system: "duedate" }],
  ["parent", "Parent", undefined],
  ["subtasks", "Sub-tasks", { type: "array", items: "issuelinks", system: "subtasks" }],
  ["issuelinks", "Linked Issues", { type: "array", items: "issuelinks", system: "issuelinks" }],
  ["comment", "Comment", { type: "comments-page", system: "comment" }],
  ["worklog", "Log Work", { type: "array", items: "worklog", system: "worklog" }],
  ["timespent", "Time Spent", { type: "number", system: "timespent" }],
];

function custom(
  id: string,
  name: string,
  schema: Omit<Version3Models.JsonType, "customId">,
): Version3Models.FieldDetails {
  const n = Number(id.replace("customfield_", ""));
  return {
    id,
    key: id,
    name,
    custom: true,
    orderable: true,
    navigable: true,
    searchable: true,
    clauseNames: [`cf[${n}]`, name],
    schema: { ...schema, customId: n },
  };
}

/**
 * `GET /rest/api/3/field`: every system field and the site's custom fields. Custom field ids are
 * site-specific: clients must discover Story Points and Sprint by `schema.custom`, by name, or via
 * the board configuration — never by a hard-coded id.
 */
export function fieldList(site: Site): Version3Models.FieldDetails[] {
  const system = SYSTEM.map(([id, name, schema]): Version3Models.FieldDetails => {
    const field: Version3Models.FieldDetails = {
      id,
      key: id,
      name,
      custom: false,
      orderable: ![
        "status",
        "created",
        "updated",
        "creator",
        "resolutiondate",
        "subtasks",
      ].includes(id),
      navigable: true,
      searchable: true,
      clauseNames: [id],
    };
    if (schema !== undefined) field.schema = schema;
    return field;
  });
  return [
    ...system,
    custom(site.storyPointsFieldId, "Story Points", {
      type: "number",
      custom: "com.atlassian.jira.plugin.system.customfieldtypes:float",
    }),
    custom(site.sprintFieldId, "Sprint", {
      type: "array",
      items: "json",
      custom: "com.pyxis.greenhopper.jira:gh-sprint",
    }),
    custom(site.otherEstimateFieldId, "Story point estimate", {
      type: "number",
      custom: "com.pyxis.greenhopper.jira:jsw-story-points",
    }),
  ];
}
