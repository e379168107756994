import {
  AuthError,
  NotFoundError,
  PermissionError,
  RemoteUnavailableError,
} from "../../core/errors.js";
import type { ProbeResult } from "../../core/tracker.js";
import type { DocumentCache } from "./document-cache.js";

/** Reachable, token accepted, project visible (`check`): the project and the server's version. */
export async function probe(session: DocumentCache): Promise<ProbeResult> {
  const base = {
    system: "tinypm" as const,
    reachable: true,
    authenticated: true,
    projectVisible: false,
    canWrite: false,
  };
  try {
    const p = await session.project();
    const v = await session.version();
    return {
      ...base,
      projectVisible: true,
      canWrite: true,
      details: `tinyPM ${v} at ${session.client.baseUrl}, project ${p.id.trim()} '${p.name ?? ""}'`,
    };
  } catch (error) {
    const where = `tinyPM at ${session.client.baseUrl}, project ${session.projectId}`;
    if (error instanceof RemoteUnavailableError)
      return {
        ...base,
        reachable: false,
        authenticated: false,
        details: `${where}: ${error.message}`,
        hint: error.hint,
      };
    if (error instanceof AuthError)
      return {
        ...base,
        authenticated: false,
        details: `${where}: ${error.message}`,
        hint: error.hint,
      };
    if (error instanceof PermissionError || error instanceof NotFoundError)
      return { ...base, details: `${where}: ${error.message}`, hint: error.hint };
    throw error;
  }
}
