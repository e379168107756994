import { z } from "zod";
import type { AdfNode } from "./adf.js";

/**
 * zod schemas of the Jira Cloud payloads the adapter reads (platform REST v3 and Agile 1.0).
 * Objects are loose: Jira adds fields freely, and we keep only what `map.ts` needs.
 */

const adfNode: z.ZodType<AdfNode> = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    text: z.string().optional(),
    attrs: z.record(z.string(), z.unknown()).optional(),
    marks: z
      .array(
        z.looseObject({ type: z.string(), attrs: z.record(z.string(), z.unknown()).optional() }),
      )
      .optional(),
    content: z.array(adfNode).optional(),
  }),
);

/** A rich-text field: ADF in v3, occasionally a plain string (v2-style or single-line fields). */
export const richText = z.union([adfNode, z.string()]).nullish();

export const rawUser = z.looseObject({
  accountId: z.string(),
  displayName: z.string().optional(),
  emailAddress: z.string().nullish(),
  active: z.boolean().optional(),
});
export type RawUser = z.infer<typeof rawUser>;

export const rawComment = z.looseObject({
  id: z.string(),
  author: rawUser.optional(),
  body: richText,
  created: z.string(),
  updated: z.string().optional(),
});
export type RawComment = z.infer<typeof rawComment>;

export const rawWorklog = z.looseObject({
  id: z.string(),
  author: rawUser.optional(),
  comment: richText,
  started: z.string(),
  timeSpentSeconds: z.number(),
});
export type RawWorklog = z.infer<typeof rawWorklog>;

export const rawCommentPage = z.looseObject({
  comments: z.array(rawComment),
  startAt: z.number().optional(),
  maxResults: z.number().optional(),
  total: z.number().optional(),
});

export const rawWorklogPage = z.looseObject({
  worklogs: z.array(rawWorklog),
  startAt: z.number().optional(),
  maxResults: z.number().optional(),
  total: z.number().optional(),
});

export const rawSprint = z.looseObject({
  id: z.number(),
  name: z.string(),
  state: z.string().optional(),
  goal: z.string().nullish(),
  startDate: z.string().nullish(),
  endDate: z.string().nullish(),
  originBoardId: z.number().optional(),
});
export type RawSprint = z.infer<typeof rawSprint>;

const named = z.looseObject({ id: z.string().optional(), name: z.string() });

const rawFields = z.looseObject({
  summary: z.string(),
  description: richText,
  status: z.looseObject({
    name: z.string(),
    statusCategory: z.looseObject({ key: z.string() }).optional(),
  }),
  priority: named.nullish(),
  labels: z.array(z.string()).nullish(),
  assignee: rawUser.nullish(),
  issuetype: z.looseObject({
    id: z.string().optional(),
    name: z.string(),
    subtask: z.boolean().optional(),
  }),
  parent: z.looseObject({ key: z.string() }).nullish(),
  updated: z.string().optional(),
  created: z.string().optional(),
  resolution: named.nullish(),
  comment: rawCommentPage.nullish(),
  worklog: rawWorklogPage.nullish(),
});
export const rawIssue = z.looseObject({
  id: z.string(),
  key: z.string(),
  fields: rawFields,
  properties: z.record(z.string(), z.unknown()).optional(),
});
export type RawIssue = z.infer<typeof rawIssue>;

/** A search page; its issues are validated one by one (`rawIssue`), so one bad issue is its own. */
export const rawSearchPage = z.looseObject({
  issues: z.array(z.unknown()),
  nextPageToken: z.string().nullish(),
  isLast: z.boolean().optional(),
});

export const rawMarkerScanPage = z.looseObject({
  issues: z.array(
    z.looseObject({
      key: z.string(),
      properties: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  nextPageToken: z.string().nullish(),
  isLast: z.boolean().optional(),
});

/** A created issue; `transition` answers the create's transition (failed: the issue stays). */
const rawCreated = z.looseObject({
  id: z.string(),
  key: z.string(),
  transition: z
    .looseObject({
      status: z.number().optional(),
      errorCollection: z
        .looseObject({
          errorMessages: z.array(z.string()).optional(),
          errors: z.record(z.string(), z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
});

export type RawCreated = z.infer<typeof rawCreated>;

export const rawBulkCreated = z.looseObject({
  issues: z.array(rawCreated).default([]),
  errors: z
    .array(
      z.looseObject({
        status: z.number().optional(),
        failedElementNumber: z.number(),
        elementErrors: z
          .looseObject({
            errorMessages: z.array(z.string()).optional(),
            errors: z.record(z.string(), z.string()).optional(),
          })
          .optional(),
      }),
    )
    .default([]),
});
export type RawBulkCreated = z.infer<typeof rawBulkCreated>;

const transitionField = z.looseObject({
  required: z.boolean().optional(),
  allowedValues: z
    .array(z.looseObject({ id: z.string().optional(), name: z.string().optional() }))
    .optional(),
});

export const rawTransitions = z.looseObject({
  transitions: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      to: z.looseObject({ id: z.string().optional(), name: z.string() }),
      fields: z.record(z.string(), transitionField).optional(),
    }),
  ),
});
/** A page of `GET /issue/createmeta/{project}/issuetypes` (PageOfCreateMetaIssueTypes). */
export const rawCreateMetaTypes = z.looseObject({
  startAt: z.number().optional(),
  total: z.number().optional(),
  issueTypes: z.array(z.looseObject({ id: z.string(), name: z.string() })).default([]),
});

/** A page of `GET /issue/createmeta/{project}/issuetypes/{id}` (PageOfCreateMetaIssueTypeWithField). */
export const rawCreateMetaFields = z.looseObject({
  startAt: z.number().optional(),
  total: z.number().optional(),
  fields: z
    .array(
      z.looseObject({
        fieldId: z.string(),
        hasDefaultValue: z.boolean().optional(),
        defaultValue: z.unknown().optional(),
      }),
    )
    .default([]),
});

export const rawPriorities = z.array(z.looseObject({ id: z.string(), name: z.string() }));

export const rawFieldList = z.array(
  z.looseObject({
    id: z.string(),
    name: z.string(),
    custom: z.boolean().optional(),
    schema: z
      .looseObject({ type: z.string().optional(), custom: z.string().optional() })
      .optional(),
  }),
);
export type RawField = z.infer<typeof rawFieldList>[number];

export const rawBoardConfig = z.looseObject({
  id: z.number().optional(),
  estimation: z
    .looseObject({
      type: z.string().optional(),
      field: z.looseObject({ fieldId: z.string(), displayName: z.string().optional() }).optional(),
    })
    .optional(),
});

export const rawBoards = z.looseObject({
  values: z.array(
    z.looseObject({ id: z.number(), name: z.string().optional(), type: z.string().optional() }),
  ),
});

export const rawSprintPage = z.looseObject({
  values: z.array(rawSprint),
  isLast: z.boolean().optional(),
  startAt: z.number().optional(),
  maxResults: z.number().optional(),
});

/** `GET /rest/agile/1.0/sprint/{id}/issue`: a search page of the sprint's issues. */
export const rawSprintIssuePage = z.looseObject({
  issues: z.array(z.looseObject({ key: z.string() })),
  total: z.number(),
  startAt: z.number().optional(),
});

export const rawUsers = z.array(rawUser);

export const rawStatuses = z.array(
  z.looseObject({
    id: z.string().optional(),
    name: z.string(),
    statusCategory: z.looseObject({ key: z.string() }).optional(),
  }),
);

export const rawProject = z.looseObject({
  id: z.string(),
  key: z.string(),
  name: z.string().optional(),
});

/** The entity property the adapter writes on every issue it creates. */
export const PROPERTY_KEY = "tinypm-sync";

export const rawMarkerProperty = z.looseObject({
  marker: z
    .looseObject({
      job: z.string(),
      origin: z.enum(["tinypm", "github", "jira", "memory"]),
      originKind: z.enum(["story", "task"]),
      originId: z.string(),
      instance: z.string().optional(),
      project: z.string().optional(),
      tinypmId: z.string().optional(),
      base: z.record(z.string(), z.string()).optional(),
      target: z.record(z.string(), z.string()).optional(),
      undone: z.string().optional(),
    })
    .optional(),
  meta: z.record(z.string(), z.json()).optional(),
});
