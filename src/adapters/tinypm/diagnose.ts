import { NotFoundError } from "../../core/errors.js";
import type { TinypmClient } from "./client.js";
import { rawProjects } from "./schema.js";

/** How many visible projects a "no such project" error lists. */
const LISTED = 20;

/**
 * Turns a 404 on the job's project into an error that leads somewhere: when `/projects` answers,
 * the project does not exist for this token (the error lists the projects it can see); when that
 * 404s too, the base URL is not tinyPM's API root (it should end in `/api`).
 */
export async function explainMissingProject(
  client: TinypmClient,
  projectId: string,
  error: NotFoundError,
): Promise<NotFoundError> {
  const ctx = {
    system: "tinypm" as const,
    operation: "GET /project/{id}",
    id: projectId,
    status: 404,
  };
  let projects;
  try {
    projects = await client.getXml({ path: "/projects", operation: "GET /projects" }, rawProjects);
  } catch (listError) {
    if (!(listError instanceof NotFoundError)) return error;
    const endsInApi = /\/api\/?$/.test(client.baseUrl);
    return new NotFoundError(
      `tinyPM at ${client.baseUrl} answered 404 for the project and for /projects: ${endsInApi ? "this is not a tinyPM API root" : "the base URL does not end in /api"}.`,
      ctx,
      {
        hint: endsInApi
          ? "Set tinypm.baseUrl to the API root of your tinyPM (e.g. http://host:8080/tinypm/api), then run `tinypm-sync check`."
          : `Set tinypm.baseUrl to the API root, e.g. ${client.baseUrl.replace(/\/+$/, "")}/api, then run \`tinypm-sync check\`.`,
        cause: error,
      },
    );
  }
  const visible = (projects.project ?? []).map((p) => `${p.id.trim()} "${p.name ?? ""}"`);
  const listed =
    visible.length === 0
      ? "this token sees no project at all"
      : `the projects this token sees: ${visible.slice(0, LISTED).join(", ")}${visible.length > LISTED ? `, … (${visible.length} in all)` : ""}`;
  return new NotFoundError(
    `tinyPM has no project ${projectId} (or this token may not see it); ${listed}.`,
    ctx,
    {
      hint:
        visible.length === 0
          ? "Give the token's user access to the project in tinyPM, or use another token."
          : "Set the job's tinypmProject to one of these ids, then run `tinypm-sync check`.",
      cause: error,
    },
  );
}
