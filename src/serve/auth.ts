import { createHmac, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { tokensEqual } from "../server-kit/tokens.js";

/** The cookie a login sets: a random session id, never the token itself. */
export const SESSION_COOKIE = "tinypm_sync_session";
/** Sessions kept at once; the oldest is forgotten past this. */
const MAX_SESSIONS = 1000;

/**
 * Who may use the dashboard and /api. Without a token (loopback only) everyone who reaches the
 * port may; with one, a request needs `Authorization: Bearer <token>` or the session cookie of a
 * login. Form posts also carry a CSRF token derived from the session (or, without auth, from the
 * process), which a page of another site cannot read.
 */
export interface Access {
  readonly required: boolean;
  allowed(req: IncomingMessage): boolean;
  /** Checks a login form's token; returns a new session id, or undefined. */
  login(presented: string | undefined): string | undefined;
  logout(req: IncomingMessage): void;
  csrfToken(req: IncomingMessage): string;
  csrfValid(req: IncomingMessage, presented: string | undefined): boolean;
}

export function createAccess(token: string | undefined): Access {
  const secret = randomBytes(32);
  const sessions = new Set<string>();
  const sessionOf = (req: IncomingMessage): string | undefined => {
    const id = cookie(req, SESSION_COOKIE);
    return id !== undefined && sessions.has(id) ? id : undefined;
  };
  const bearer = (req: IncomingMessage): string | undefined => {
    const header = req.headers.authorization;
    const m = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
    return m?.[1];
  };
  const csrfFor = (req: IncomingMessage): string =>
    createHmac("sha256", secret)
      .update(sessionOf(req) ?? "anonymous")
      .digest("hex");
  return {
    required: token !== undefined,
    allowed(req) {
      if (token === undefined) return true;
      const presented = bearer(req);
      if (presented !== undefined) return tokensEqual(presented, token);
      return sessionOf(req) !== undefined;
    },
    login(presented) {
      if (token === undefined || !tokensEqual(presented, token)) return undefined;
      const id = randomBytes(24).toString("hex");
      sessions.add(id);
      if (sessions.size > MAX_SESSIONS) {
        const oldest = sessions.values().next().value;
        if (oldest !== undefined) sessions.delete(oldest);
      }
      return id;
    },
    logout(req) {
      const id = sessionOf(req);
      if (id !== undefined) sessions.delete(id);
    },
    csrfToken: csrfFor,
    csrfValid(req, presented) {
      // A bearer-token client is not a browser carrying ambient credentials.
      if (token !== undefined && bearer(req) !== undefined) return true;
      return presented !== undefined && tokensEqual(presented, csrfFor(req));
    },
  };
}

/** One cookie's value from the request. */
function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}
