import { isAbsolute, resolve } from "node:path";
import type { ValidationIssue } from "../core/errors.js";
import { isPostgresUrl, redactUrl, urlHasPassword } from "../state/postgres-url.js";
import type { ParsedConfig } from "./schema.js";

/** The default SQLite state file, relative to the config file. */
const DEFAULT_STATE_PATH = ".tinypm-sync/state.db";

/** Where the config puts the state: an SQLite file, or a PostgreSQL database. */
export type ConfiguredState = (
  | { readonly backend: "sqlite"; readonly path: string; readonly display: string }
  | {
      readonly backend: "postgres";
      /** The full URL, password included when it came from `urlEnv`: a secret. */
      readonly url: string;
      /** The URL with its password replaced by `***`, for messages. */
      readonly display: string;
      /**
       * How long a job's lease lives without a heartbeat, from `TINYPM_SYNC_LEASE_TTL_MS`
       * (undefined: the default 30 s). Shorter fails a dead worker's jobs over sooner.
       */
      readonly leaseTtlMs?: number | undefined;
    }
) & {
  /**
   * The longest a created item's confirmation waits for its group commit, from
   * `TINYPM_SYNC_CONFIRM_WAIT_MS` (undefined: the default 1 s).
   */
  readonly confirmWaitMs?: number | undefined;
};

interface StateArgs {
  readonly file: string;
  readonly dir: string;
  readonly state: ParsedConfig["state"];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly issues: ValidationIssue[];
  readonly secretValues: string[];
}

/**
 * Resolves `state`: `path` (SQLite, the default), `url` or `urlEnv` (PostgreSQL) — one of them.
 * A password written into `state.url` is refused: the config file is not a place for secrets.
 */
export function resolveStateConfig(a: StateArgs): ConfiguredState {
  const { state, file, issues } = a;
  const given = (["path", "url", "urlEnv"] as const).filter((k) => state[k] !== undefined);
  if (given.length > 1) {
    issues.push({
      file,
      path: ["state"],
      message: `give one of path (SQLite), url or urlEnv (PostgreSQL), not ${given.join(" and ")}`,
    });
  }
  if (state.url !== undefined) {
    if (urlHasPassword(state.url)) {
      issues.push({
        file,
        path: ["state", "url"],
        message:
          "a password in state.url is refused (the config file is no place for secrets): put the " +
          'whole URL in an environment variable and name it with "urlEnv" (e.g. ' +
          '"urlEnv": "TINYPM_SYNC_STATE_URL"), or remove the password and export PGPASSWORD',
      });
    }
    return {
      backend: "postgres",
      url: state.url,
      display: redactUrl(state.url),
      leaseTtlMs: leaseTtl(a),
      confirmWaitMs: confirmWait(a),
    };
  }
  if (state.urlEnv !== undefined) {
    const name = state.urlEnv;
    const value = a.env[name];
    if (value === undefined || value === "") {
      // Needed even where other secrets are optional (`status`, `conflicts`): they read the state.
      issues.push({
        file,
        path: ["state", "urlEnv"],
        message: `environment variable ${name} is ${value === undefined ? "not set" : "set but empty"} (the PostgreSQL state URL); export it before running`,
      });
      return { backend: "postgres", url: "", display: `$${name}` };
    }
    if (!isPostgresUrl(value)) {
      issues.push({
        file,
        path: ["state", "urlEnv"],
        message: `environment variable ${name} does not hold a postgres:// URL (its value is not shown)`,
      });
    }
    if (!a.secretValues.includes(value)) a.secretValues.push(value);
    return {
      backend: "postgres",
      url: value,
      display: redactUrl(value),
      leaseTtlMs: leaseTtl(a),
      confirmWaitMs: confirmWait(a),
    };
  }
  const path = state.path ?? DEFAULT_STATE_PATH;
  const absolute = isAbsolute(path) ? path : resolve(a.dir, path);
  return { backend: "sqlite", path: absolute, display: absolute, confirmWaitMs: confirmWait(a) };
}

/** The variable that sets a PostgreSQL job lease's life, in ms. */
export const LEASE_TTL_VAR = "TINYPM_SYNC_LEASE_TTL_MS";

/** `TINYPM_SYNC_LEASE_TTL_MS`: an integer of milliseconds from 3000 to 600000, or unset. */
function leaseTtl(a: StateArgs): number | undefined {
  const raw = a.env[LEASE_TTL_VAR];
  if (raw === undefined || raw === "") return undefined;
  const ms = Number(raw);
  if (/^\d+$/.test(raw) && ms >= 3000 && ms <= 600_000) return ms;
  a.issues.push({
    file: a.file,
    path: ["state"],
    message: `environment variable ${LEASE_TTL_VAR} must be milliseconds from 3000 to 600000 (the PostgreSQL job lease's life), got "${raw}"`,
  });
  return undefined;
}

/** The variable that sets how long a create's confirmation may wait for its group, in ms. */
export const CONFIRM_WAIT_VAR = "TINYPM_SYNC_CONFIRM_WAIT_MS";

/** `TINYPM_SYNC_CONFIRM_WAIT_MS`: an integer of milliseconds from 0 to 600000, or unset. */
function confirmWait(a: StateArgs): number | undefined {
  const raw = a.env[CONFIRM_WAIT_VAR];
  if (raw === undefined || raw === "") return undefined;
  const ms = Number(raw);
  if (/^\d+$/.test(raw) && ms <= 600_000) return ms;
  a.issues.push({
    file: a.file,
    path: ["state"],
    message: `environment variable ${CONFIRM_WAIT_VAR} must be milliseconds from 0 to 600000 (how long a created item's confirmation waits for its group commit), got "${raw}"`,
  });
  return undefined;
}
