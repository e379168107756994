import { existsSync, readFileSync } from "node:fs";
import { resolveStateConfig, type ConfiguredState } from "./state-config.js";
import { dirname, resolve } from "node:path";
import { ConfigError, UsageError, type ValidationIssue } from "../core/errors.js";
import { zodIssues } from "../core/zod-issues.js";
import { jsonSyntaxPosition } from "./json-position.js";
import { knownKeysOf } from "./known-keys.js";
import { checkConfigRules } from "./rules.js";
import {
  ConfigSchema,
  type JobConfig,
  type LimitsConfig,
  type ParsedConfig,
  type TargetConfig,
  type TinypmConfig,
} from "./schema.js";

/** A job with every reference resolved: instances, secrets, absolute paths. */
export interface ResolvedJob {
  readonly job: JobConfig;
  readonly tinypm: TinypmConfig & { readonly token: string };
  readonly target: TargetConfig & {
    readonly name: string;
    readonly token: string;
    readonly email?: string | undefined;
    /** The webhook secret from `webhookSecretEnv`, when named and set (`serve`). */
    readonly webhookSecret?: string | undefined;
  };
  readonly mappingPath: string;
  /** The job's user map: its own `users`, else the config's top-level one (absolute). */
  readonly usersPath: string | undefined;
}

export interface LoadedConfig {
  readonly file: string;
  readonly config: ParsedConfig;
  /** The selected jobs (all when no name was asked for). */
  readonly jobs: readonly ResolvedJob[];
  /** The top-level user map (absolute); a job's own `users` wins: `ResolvedJob.usersPath`. */
  readonly usersPath: string | undefined;
  /**
   * Where the state lives, for messages: the SQLite file, or the PostgreSQL URL with its
   * password replaced by `***`.
   */
  readonly statePath: string;
  /** The state's backend and location (`state.path`, `state.url` or `state.urlEnv`). */
  readonly state: ConfiguredState;
  /** The dashboard token from `serve.auth.tokenEnv`, when named and set (`serve`). */
  readonly serveToken: string | undefined;
  /** Every secret value resolved, for redaction. Never print or persist these. */
  readonly secrets: readonly string[];
  readonly warnings: readonly string[];
}

export interface LoadConfigOptions {
  /** The environment to resolve secrets from (the CLI passes the process environment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Only these jobs are resolved (and need their secrets); default all. */
  readonly jobs?: readonly string[] | undefined;
  /** Skip secret resolution (e.g. `check` reports missing ones itself). */
  readonly secrets?: "require" | "optional" | undefined;
}

/**
 * Loads a config file: parse (zod, every issue with its path) → normalize (defaults, paths
 * relative to the file, secrets from the environment) → rules (cross-field). Throws one
 * ConfigError with every problem; nothing is touched before it returns.
 */
export function readConfigFile(file: string, opts: LoadConfigOptions): LoadedConfig {
  const path = resolve(file);
  return resolveConfig(readJson(path), path, dirname(path), opts);
}

/** Where a config given as an object (not a file) is named in errors and in `LoadedConfig.file`. */
export const CONFIG_OBJECT_NAME = "(config object)";

/**
 * Loads a config given as an object, as `readConfigFile` loads a file: relative paths (mappings, user
 * map, state) resolve against `baseDir`; the same checks, the same single ConfigError.
 */
export function loadConfigObject(
  raw: unknown,
  opts: LoadConfigOptions & { readonly baseDir: string },
): LoadedConfig {
  const dir = resolve(opts.baseDir);
  return resolveConfig(raw, CONFIG_OBJECT_NAME, dir, opts);
}

/** The environment of this process, for callers that have no other (the library's default). */
export function processEnv(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

function resolveConfig(
  raw: unknown,
  path: string,
  dir: string,
  opts: LoadConfigOptions,
): LoadedConfig {
  const parsed = ConfigSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success)
    throw invalid(
      path,
      zodIssues(parsed.error.issues, {
        file: path,
        root: ConfigSchema,
        known: knownKeysOf(ConfigSchema),
      }),
    );
  const config = parsed.data;
  const issues = checkConfigRules(path, config);
  // Problems of the file first; then a job name it does not have (a usage error).
  const selected = issues.length > 0 ? [] : selectJobs(path, config, opts.jobs);
  const secrets: string[] = [];
  const jobs =
    issues.length > 0
      ? []
      : selected.map(({ job, index }) =>
          resolveJob({ dir, path, config, job, index, opts, issues, secrets }),
        );
  const usersPath = config.users === undefined ? undefined : resolve(dir, config.users);
  if (usersPath !== undefined && !existsSync(usersPath)) {
    issues.push({ file: path, path: ["users"], message: `user map file not found: ${usersPath}` });
  }
  const state = resolveStateConfig({
    file: path,
    dir,
    state: config.state,
    env: opts.env,
    issues,
    secretValues: secrets,
  });
  if (issues.length > 0) throw invalid(path, issues);
  const serveToken = optionalSecret(opts.env, config.serve?.auth?.tokenEnv, secrets);
  return {
    serveToken,
    file: path,
    config,
    jobs,
    usersPath,
    statePath: state.display,
    state,
    secrets,
    warnings: [],
  };
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    throw new ConfigError(`Cannot read the config file ${path}.`, {
      cause,
      hint: "Check the --config path; `config.example.json` shows the format.",
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const at = jsonSyntaxPosition(text, (cause as Error).message);
    const where = at === undefined ? "" : ` at line ${at.line}, column ${at.column}`;
    throw new ConfigError(
      `The config file ${path} is not valid JSON${where}: ${(cause as Error).message}.${at === undefined ? "" : `\n  ${at.line} | ${at.source}\n  ${" ".repeat(String(at.line).length)} | ${" ".repeat(Math.max(0, at.column - 1))}^`}`,
      {
        cause,
        hint: `Fix the JSON syntax${where} (a missing comma or quote, or a trailing comma, is the usual cause); \`config.example.json\` shows the format.`,
      },
    );
  }
}

function invalid(path: string, issues: readonly ValidationIssue[]): ConfigError {
  const problems = `${issues.length} problem${issues.length === 1 ? "" : "s"}`;
  if (path === CONFIG_OBJECT_NAME)
    return new ConfigError(`The config object has ${problems}.`, {
      issues,
      hint: "Fix each problem listed (paths are within the object); `config.example.json` shows the format.",
    });
  return new ConfigError(`The config file ${path} has ${problems}.`, {
    issues,
    hint: "Fix each problem listed, then run `tinypm-sync check --config <file>`.",
  });
}

function selectJobs(
  path: string,
  config: ParsedConfig,
  names: readonly string[] | undefined,
): { job: JobConfig; index: number }[] {
  const all = config.jobs.map((job, index) => ({ job, index }));
  if (names === undefined) return all;
  const valid = config.jobs.map((j) => j.name);
  const unknown = names.filter((name) => !valid.includes(name));
  if (unknown.length > 0) throw unknownJob(path, unknown, valid);
  return all.filter(({ job }) => names.includes(job.name));
}

/**
 * A job name the config does not have: a mistyped `--job`, not a fault of the config file, so a
 * usage error naming the jobs there are.
 */
function unknownJob(
  path: string,
  unknown: readonly string[],
  valid: readonly string[],
): UsageError {
  const where = path === CONFIG_OBJECT_NAME ? "the config object" : path;
  const names = unknown.map((n) => `\`${n}\``).join(", ");
  return new UsageError(`no job ${names}; jobs in ${where}: ${valid.join(", ") || "none"}`, {
    hint:
      valid.length === 0
        ? `Add a job to the config's \`jobs\`.`
        : `Name one of them (\`--job ${valid[0] ?? ""}\`); job names are case-sensitive.`,
    details: { jobs: valid },
  });
}

interface ResolveArgs {
  dir: string;
  path: string;
  config: ParsedConfig;
  job: JobConfig;
  index: number;
  opts: LoadConfigOptions;
  issues: ValidationIssue[];
  secrets: string[];
}

function resolveJob(a: ResolveArgs): ResolvedJob {
  // checkConfigRules has ensured both exist before any job is resolved.
  const tinypm = a.job.tinypm ?? a.config.tinypm;
  const target = a.config.targets[a.job.target];
  if (tinypm === undefined || target === undefined) {
    throw new ConfigError(
      `Job "${a.job.name}" refers to a tinyPM instance or target that does not exist.`,
    );
  }
  const tinypmAt = a.job.tinypm ? ["jobs", a.index, "tinypm", "tokenEnv"] : ["tinypm", "tokenEnv"];
  const secret = (name: string, at: (string | number)[]): string => {
    const value = a.opts.env[name];
    if (value === undefined || value === "") {
      if (a.opts.secrets !== "optional") {
        a.issues.push({
          file: a.path,
          path: at,
          message:
            value === undefined
              ? `environment variable ${name} is not set (needed by job "${a.job.name}"); export it before running`
              : `environment variable ${name} is set but empty (needed by job "${a.job.name}"); put the secret in it`,
        });
      }
      return "";
    }
    if (!a.secrets.includes(value)) a.secrets.push(value);
    return value;
  };
  const targetAt = ["targets", a.job.target];
  return {
    job: a.job,
    tinypm: { ...tinypm, token: secret(tinypm.tokenEnv, tinypmAt) },
    target: {
      ...target,
      name: a.job.target,
      token: secret(target.tokenEnv, [...targetAt, "tokenEnv"]),
      email:
        target.type === "jira" && target.emailEnv !== undefined
          ? secret(target.emailEnv, [...targetAt, "emailEnv"])
          : undefined,
      webhookSecret: optionalSecret(a.opts.env, target.webhookSecretEnv, a.secrets),
      ...(target.type === "jira" &&
        target.caFile !== undefined && { caFile: caFilePath(a, target.caFile) }),
    },
    mappingPath: resolve(a.dir, a.job.mapping),
    usersPath: jobUsersPath(a),
  };
}

/** A Jira target's CA file, relative to the config file like every path in it (checked to exist). */
function caFilePath(a: ResolveArgs, file: string): string {
  const path = resolve(a.dir, file);
  if (!existsSync(path))
    a.issues.push({
      file: a.path,
      path: ["targets", a.job.target, "caFile"],
      message: `CA file not found: ${path}; give the PEM file of the CA that signed the Jira site's certificate, relative to this config file`,
    });
  return path;
}

/** The job's own user map (checked to exist), else the top-level one (checked by the caller). */
function jobUsersPath(a: ResolveArgs): string | undefined {
  if (a.job.users === undefined)
    return a.config.users === undefined ? undefined : resolve(a.dir, a.config.users);
  const own = resolve(a.dir, a.job.users);
  if (!existsSync(own))
    a.issues.push({
      file: a.path,
      path: ["jobs", a.index, "users"],
      message: `user map file not found: ${own}`,
    });
  return own;
}

/**
 * A secret only `serve` needs: read when the variable is named and set (and then redacted);
 * `serve` itself refuses to start when it needs one that is missing.
 */
function optionalSecret(
  env: LoadConfigOptions["env"],
  name: string | undefined,
  secrets: string[],
): string | undefined {
  const value = name === undefined ? undefined : env[name];
  if (value === undefined || value === "") return undefined;
  if (!secrets.includes(value)) secrets.push(value);
  return value;
}

/** A run waits up to 10 minutes for a system's limits before it stops (`limits.maxWaitMs`). */
export const DEFAULT_MAX_WAIT_MS = 600_000;

/** The limits of a system, with the vendor's published defaults. */
export function limitsFor(
  system: "tinypm" | "github" | "jira",
  limits: LimitsConfig | undefined,
): Required<LimitsConfig> {
  const defaults: Record<typeof system, Required<Omit<LimitsConfig, "maxWaitMs">>> = {
    tinypm: { concurrency: 4, writesPerMinute: 6000, writesPerHour: 360000, readsPerSecond: 500 },
    github: { concurrency: 4, writesPerMinute: 80, writesPerHour: 500, readsPerSecond: 20 },
    jira: { concurrency: 4, writesPerMinute: 1200, writesPerHour: 72000, readsPerSecond: 50 },
  };
  return { ...defaults[system], maxWaitMs: DEFAULT_MAX_WAIT_MS, ...limits };
}
