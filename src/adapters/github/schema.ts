import { z } from "zod";

/** The fields of GitHub's REST payloads the adapter reads (unknown fields pass through). */

export const rawUserSchema = z.object({ login: z.string(), id: z.number().optional() });

export const rawLabelSchema = z.object({
  id: z.number().optional(),
  name: z.string(),
  color: z.string().nullish(),
  description: z.string().nullish(),
});

export const rawMilestoneSchema = z.object({
  id: z.number().optional(),
  number: z.number(),
  title: z.string(),
  description: z.string().nullish(),
  state: z.enum(["open", "closed"]).optional(),
  due_on: z.string().nullish(),
});

export const rawIssueSchema = z.object({
  id: z.number(),
  node_id: z.string().optional(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.enum(["open", "closed"]),
  state_reason: z.string().nullish(),
  labels: z.array(z.union([z.string(), rawLabelSchema])).default([]),
  assignees: z.array(rawUserSchema).nullish(),
  milestone: rawMilestoneSchema.nullish(),
  comments: z.number().default(0),
  created_at: z.string(),
  updated_at: z.string(),
  html_url: z.string().optional(),
  parent_issue_url: z.string().nullish(),
  pull_request: z.unknown().optional(),
  user: rawUserSchema.nullish(),
});

export const rawCommentSchema = z.object({
  id: z.number(),
  body: z.string().nullish(),
  user: rawUserSchema.nullish(),
  created_at: z.string(),
  updated_at: z.string().optional(),
});

export const rawRepoSchema = z.object({
  id: z.number(),
  full_name: z.string(),
  has_issues: z.boolean().optional(),
  permissions: z
    .object({ admin: z.boolean().optional(), push: z.boolean().optional() })
    .partial()
    .optional(),
});

export const rawImportSchema = z.object({
  id: z.number(),
  status: z.string(),
  url: z.string().optional(),
  issue_url: z.string().nullish(),
  errors: z
    .array(
      z
        .object({
          location: z.string().optional(),
          resource: z.string().optional(),
          field: z.string().optional(),
          value: z.unknown().optional(),
          code: z.string().optional(),
        })
        .loose(),
    )
    .optional(),
});

export type RawUser = z.infer<typeof rawUserSchema>;
export type RawLabel = z.infer<typeof rawLabelSchema>;
export type RawMilestone = z.infer<typeof rawMilestoneSchema>;
export type RawIssue = z.infer<typeof rawIssueSchema>;
export type RawComment = z.infer<typeof rawCommentSchema>;
export type RawImport = z.infer<typeof rawImportSchema>;
