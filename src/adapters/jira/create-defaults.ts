import type { ItemKind } from "../../core/model.js";
import type { CreateDefaults, JiraContext } from "./context.js";
import { isRecord } from "./errors.js";
import { rawCreateMetaFields, rawCreateMetaTypes } from "./schema.js";

/**
 * What Jira gives an issue of `kind` for the fields a create leaves out, as the create metadata
 * of the project and issue type says (`defaultValue`): the priority scheme's default priority.
 * Read once per issue type and kept (a few reads a run); an issue type missing from the
 * project's create metadata, or a field without a default, gives nothing.
 */
export function createDefaults(ctx: JiraContext, kind: ItemKind): Promise<CreateDefaults> {
  const type = kind === "task" ? ctx.settings.subtaskType : ctx.settings.storyType;
  let pending = ctx.createDefaults.get(type);
  if (pending === undefined) {
    pending = readDefaults(ctx, type).catch((error: unknown) => {
      ctx.createDefaults.delete(type); // a failed read is tried again by the next caller
      throw error;
    });
    ctx.createDefaults.set(type, pending);
  }
  return pending;
}

async function readDefaults(ctx: JiraContext, typeName: string): Promise<CreateDefaults> {
  const typeId = await issueTypeId(ctx, typeName);
  if (typeId === undefined) return {};
  const out: { priority?: string } = {};
  for (let startAt = 0; ;) {
    const page = ctx.client.parse(
      rawCreateMetaFields,
      await ctx.api.createMetaFields(ctx.settings.projectKey, typeId, startAt),
      { operation: "GET /rest/api/3/issue/createmeta/{project}/issuetypes/{id}", id: typeId },
    );
    for (const f of page.fields) {
      if (f.fieldId !== "priority" || f.hasDefaultValue === false) continue;
      const v = f.defaultValue;
      if (isRecord(v) && typeof v.name === "string") out.priority = v.name;
    }
    startAt += page.fields.length;
    if (page.fields.length === 0 || startAt >= (page.total ?? startAt)) return out;
  }
}

/** The id of the project's issue type named `name` in its create metadata. */
async function issueTypeId(ctx: JiraContext, name: string): Promise<string | undefined> {
  for (let startAt = 0; ;) {
    const page = ctx.client.parse(
      rawCreateMetaTypes,
      await ctx.api.createMetaTypes(ctx.settings.projectKey, startAt),
      { operation: "GET /rest/api/3/issue/createmeta/{project}/issuetypes" },
    );
    const found =
      page.issueTypes.find((t) => t.name === name) ??
      page.issueTypes.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (found !== undefined) return found.id;
    startAt += page.issueTypes.length;
    if (page.issueTypes.length === 0 || startAt >= (page.total ?? startAt)) return undefined;
  }
}
