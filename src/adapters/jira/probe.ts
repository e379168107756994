import { AuthError, PermissionError, SyncError } from "../../core/errors.js";
import type { ProbeResult } from "../../core/tracker.js";
import type { JiraContext } from "./context.js";
import { rawProject } from "./schema.js";

/** Reachable, credentials accepted, project visible (`check`). */
export async function probeSite(ctx: JiraContext): Promise<ProbeResult> {
  const base = {
    system: "jira" as const,
    reachable: false,
    authenticated: false,
    projectVisible: false,
    canWrite: false,
  };
  const where = `Jira at ${ctx.settings.baseUrl}`;
  try {
    await ctx.api.myself();
  } catch (error) {
    if (error instanceof AuthError)
      return {
        ...base,
        reachable: true,
        details: `${where}: ${error.message}`,
        hint: error.hint,
      };
    if (error instanceof SyncError)
      return { ...base, details: `${where}: ${error.message}`, hint: error.hint };
    throw error;
  }
  try {
    const project = ctx.client.parse(rawProject, await ctx.api.project(ctx.settings.projectKey), {
      operation: "GET /rest/api/3/project/{key}",
      id: ctx.settings.projectKey,
    });
    await ctx.site();
    return {
      ...base,
      reachable: true,
      authenticated: true,
      projectVisible: true,
      canWrite: true,
      details: `${where}, project ${project.key} '${project.name ?? project.key}'`,
    };
  } catch (error) {
    if (!(error instanceof SyncError)) throw error;
    const denied = error instanceof PermissionError;
    return {
      ...base,
      reachable: true,
      authenticated: true,
      projectVisible: denied,
      details: `${where}: ${error.message}`,
      hint: error.hint,
    };
  }
}
