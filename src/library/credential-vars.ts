import type { ResolvedJob } from "../config/load.js";
import { AuthError, PermissionError } from "../core/errors.js";

/** The environment variables holding a system's credentials in a job, e.g. `$GITHUB_TOKEN`. */
export function credentialVars(resolved: ResolvedJob, system: string): string[] {
  if (system === "tinypm") return [resolved.tinypm.tokenEnv];
  if (system !== resolved.target.type) return [];
  const t = resolved.target;
  if (t.type !== "jira" || t.emailEnv === undefined) return [t.tokenEnv];
  return [t.emailEnv, t.tokenEnv];
}

/**
 * An auth or permission error whose text does not name the variable the token came from gets
 * it added to its hint, so the user knows which secret to fix (the value is never shown).
 */
export function nameCredentialVars(error: unknown, resolved: ResolvedJob): unknown {
  if (!(error instanceof AuthError || error instanceof PermissionError)) return error;
  const vars = credentialVars(resolved, error.system);
  const text = `${error.message} ${error.hint ?? ""}`;
  if (vars.length === 0 || vars.every((v) => text.includes(v))) return error;
  const names = vars.map((v) => `$${v}`).join(" and ");
  const hint = `${error.hint ?? "Check the credentials."} The ${error.system === "tinypm" ? "tinyPM" : resolved.target.name} credentials come from ${names}.`;
  const ctx = { system: error.system, operation: error.operation, status: error.status };
  const opts = { hint, cause: error, details: error.details };
  return error instanceof AuthError
    ? new AuthError(error.message, ctx, opts)
    : new PermissionError(error.message, ctx, opts);
}
