/**
 * Authentication as Jira Data Center does it for a REST client: a personal access token sent as
 * `Authorization: Bearer <PAT>`; Basic auth refused (Jira 11's default). Seraph treats a refused
 * token as an anonymous request: endpoints anonymous users may read answer 200 with nothing in
 * them, marked only by `X-Seraph-LoginReason: AUTHENTICATED_FAILED`, while `/myself` and every
 * other endpoint answer 401.
 */
import type { IncomingMessage } from "node:http";
import { tokensEqual } from "../../server-kit/tokens.js";
import type { Reply } from "./context.js";

export type DcAuth = "ok" | "failed" | "basic" | "anonymous";

export function dcAuthenticate(req: IncomingMessage, token: string): DcAuth {
  const header = req.headers.authorization ?? "";
  if (header === "") return "anonymous";
  if (header.startsWith("Basic ")) return "basic";
  if (!header.startsWith("Bearer ")) return "failed";
  return tokensEqual(header.slice(7).trim(), token) ? "ok" : "failed";
}

const EMPTY_SEARCH = { startAt: 0, maxResults: 50, total: 0, issues: [] };

/**
 * What an anonymous (or refused) request gets: `"serve"` for public endpoints (serverInfo), an
 * empty 200 where anonymous users could read, else a 401.
 */
export function dcAnonymousReply(auth: DcAuth, method: string, path: string): Reply | "serve" {
  const headers: Record<string, string> =
    auth === "failed"
      ? { "x-seraph-loginreason": "AUTHENTICATED_FAILED" }
      : auth === "basic"
        ? { "x-seraph-loginreason": "AUTHENTICATION_DENIED" }
        : {};
  const rest = /^\/rest\/api\/(?:2|latest)\/(.*)$/.exec(path)?.[1];
  if (auth === "basic") {
    const message =
      "Basic authentication is disabled on this Jira Data Center site: send a personal access token as 'Authorization: Bearer <token>'.";
    return { status: 401, body: { errorMessages: [message], errors: {} }, headers };
  }
  // Public to anonymous users: the server's info and the field list (still marked, when refused).
  if (method === "GET" && rest === "serverInfo") return "serve";
  if (method === "GET" && rest === "field") return "serve";
  if (rest === "search" && (method === "GET" || method === "POST"))
    return { status: 200, body: EMPTY_SEARCH, headers };
  if (method === "GET" && rest === "project") return { status: 200, body: [], headers };
  const message = "You are not authenticated. Authentication required to perform this operation.";
  return { status: 401, body: { errorMessages: [message], errors: {} }, headers };
}
