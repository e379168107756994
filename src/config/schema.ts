import { z } from "zod";
import { envName, GithubConnectionSchema, JiraConnectionSchema } from "../adapters/connection.js";
import { DURATION_PATTERN, durationMs } from "../core/duration.js";

/** Request limits of one remote system (its token's request gate). Defaults are the vendor's published limits. */
const LimitsSchema = z
  .strictObject({
    concurrency: z.number().int().min(1).max(64).optional().describe("Calls in flight at once."),
    writesPerMinute: z
      .number()
      .positive()
      .optional()
      .describe("Content-creating writes per minute."),
    writesPerHour: z.number().positive().optional().describe("Content-creating writes per hour."),
    readsPerSecond: z.number().positive().optional().describe("Reads per second."),
    maxWaitMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "Longest wait for this system's limits a run accepts, in milliseconds (default 600000, 10 minutes): a longer one stops the run before its next request with exit code 3, unless --wait-for-limits.",
      ),
  })
  .describe(
    "Rate and concurrency limits of this system's requests (shared by every job using the same token).",
  );

const timeoutMs = z
  .number()
  .int()
  .positive()
  .optional()
  .describe(
    "Per-request timeout in milliseconds (default 30000): a server that does not answer fails fast.",
  );

/** When `serve` runs a job: every fixed interval, or on a cron expression. */
const ScheduleSchema = z
  .union([
    z
      .strictObject({
        every: z
          .string()
          .regex(DURATION_PATTERN, "must be a duration such as 30s, 5m or 1h")
          .refine((every) => (durationMs(every) ?? 0) >= 1000, "must be at least one second")
          .describe("Time between runs: 30s, 5m, 1h."),
      })
      .describe("A run every fixed interval."),
    z
      .strictObject({
        cron: z
          .string()
          .min(1)
          .describe(
            "A cron expression (5 or 6 fields, e.g. */5 * * * *), in the server's time zone.",
          ),
      })
      .describe("Runs on a cron expression."),
  ])
  .describe("When `serve` runs this job (default every 5 minutes).");

const webhookSecretEnv = envName
  .optional()
  .describe(
    "Name of the environment variable holding the secret this target's webhooks are signed with (`serve`).",
  );

const TinypmSchema = z
  .strictObject({
    baseUrl: z
      .url()
      .describe("tinyPM API root, ending in /api (e.g. http://localhost:8080/tinypm/api)."),
    tokenEnv: envName.describe("Name of the environment variable holding the tinyPM API token."),
    limits: LimitsSchema.optional(),
    timeoutMs,
    fullScanEvery: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe(
        "Syncs read closed iterations in full every this many runs (default 12); between, only when their story list changed. 1 reads everything every run.",
      ),
  })
  .describe("The tinyPM instance.");

const GithubTargetSchema = GithubConnectionSchema.extend({
  limits: LimitsSchema.optional(),
  webhookSecretEnv,
  timeoutMs,
}).describe("A GitHub repository.");

const JiraTargetSchema = JiraConnectionSchema.extend({
  limits: LimitsSchema.optional(),
  webhookSecretEnv,
  timeoutMs,
}).describe("A Jira Cloud project.");

const TargetSchema = z.discriminatedUnion("type", [GithubTargetSchema, JiraTargetSchema]);

const JobSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must be letters, digits, dot, dash or underscore")
      .describe("Job name, used by --job and in markers."),
    tinypmProject: z.number().int().positive().describe("tinyPM project id."),
    target: z.string().min(1).describe("Name of an entry in `targets`."),
    mapping: z.string().min(1).describe("Path of the mapping file, relative to this config file."),
    direction: z
      .enum(["to-target", "to-tinypm", "both"])
      .default("both")
      .describe("to-target: tinyPM → target; to-tinypm: target → tinyPM; both: bidirectional."),
    conflicts: z
      .enum(["manual", "tinypm", "target", "newest"])
      .default("manual")
      .describe("How a field changed on both sides is resolved: manual parks it."),
    richText: z
      .enum(["merge", "overwrite", "keep-target"])
      .default("merge")
      .describe(
        "A tinyPM description edit that would lose rich content on the target (a table cell, a panel, a mention node): merge parks it as a conflict, overwrite writes it as text with a warning, keep-target lets the target's description win.",
      ),
    onDelete: z
      .enum(["ignore", "close", "delete"])
      .default("close")
      .describe("What a deletion on one side does to the other."),
    maxDeletes: z
      .union([
        z.number().int().min(0),
        z
          .string()
          .regex(/^\d+(\.\d+)?%$/, 'expected a number such as 25, or a percentage such as "10%"'),
      ])
      .default("10%")
      .describe(
        'The most linked items one sync or migrate may delete or close on either side: a number (25), or a share of the job\'s links ("10%", never fewer than 5). A run whose plan goes over writes nothing and stops with mass_delete; --allow-deletes lets one run through.',
      ),
    // No zod default: an absent value lets the user-map file's `policy:` decide (issue 14).
    unmappedUsers: z
      .enum(["skip", "placeholder", "fail"])
      .optional()
      .describe(
        "What happens to users with no counterpart on the other side. When absent, the user-map file's policy applies, else skip.",
      ),
    tinypm: TinypmSchema.optional().describe(
      "Overrides the top-level tinyPM instance for this job.",
    ),
    users: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Path of this job's user map file (YAML), relative to this config file; overrides the top-level `users` for this job (one tinyPM login can map to a GitHub login in one job and a Jira user in another).",
      ),
    importFrom: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Jobs whose marked items this job may import into its tinyPM project (e.g. bringing a project back into a new tinyPM); they keep their marker. Items of any other job or tinyPM instance are never imported, adopted or updated.",
      ),
    schedule: ScheduleSchema.optional(),
  })
  .describe("One migration or sync job.");

export const ConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe("Path of the JSON Schema, for editors."),
    tinypm: TinypmSchema.optional(),
    targets: z.record(z.string(), TargetSchema).describe("Target systems by name."),
    jobs: z.array(JobSchema).min(1).describe("The jobs."),
    users: z
      .string()
      .optional()
      .describe("Path of the user map file (YAML), relative to this config file."),
    state: z
      .strictObject({
        path: z
          .string()
          .min(1)
          .optional()
          .describe(
            "SQLite state file, relative to this config file (default .tinypm-sync/state.db). One process at a time.",
          ),
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\//i, "expected a postgres:// URL")
          .optional()
          .describe(
            "PostgreSQL state instead of a file: postgres://user@host:port/database, without a password (use urlEnv, or PGPASSWORD). Several workers may share it.",
          ),
        urlEnv: z
          .string()
          .min(1)
          .optional()
          .describe(
            "Environment variable holding the PostgreSQL state URL, password included (e.g. TINYPM_SYNC_STATE_URL).",
          ),
        waitForLockMs: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe("How long to wait for another run's lock."),
      })
      .default({ waitForLockMs: 0 })
      .describe("Where links, snapshots and runs are kept."),
    log: z
      .strictObject({
        level: z
          .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
          .default("info"),
        format: z
          .enum(["json", "pretty"])
          .optional()
          .describe("json lines, or pretty for people (default: pretty on a terminal, else json)."),
      })
      .default({ level: "info" })
      .describe("Logging (always to stderr)."),
    serve: z
      .strictObject({
        auth: z
          .strictObject({
            tokenEnv: envName.describe(
              "Name of the environment variable holding the token the dashboard and /api ask for.",
            ),
          })
          .optional()
          .describe(
            "Access to the dashboard and /api (required when serve binds beyond 127.0.0.1).",
          ),
      })
      .optional()
      .describe("The sync service (`tinypm-sync serve`)."),
  })
  .describe("tinypm-sync configuration.");

export type ConfigInput = z.input<typeof ConfigSchema>;
export type ParsedConfig = z.output<typeof ConfigSchema>;
export type TinypmConfig = z.output<typeof TinypmSchema>;
export type TargetConfig = z.output<typeof TargetSchema>;
export type GithubTargetConfig = z.output<typeof GithubTargetSchema>;
export type JiraTargetConfig = z.output<typeof JiraTargetSchema>;
export type JobConfig = z.output<typeof JobSchema>;
export type LimitsConfig = z.output<typeof LimitsSchema>;
export type ScheduleConfig = z.output<typeof ScheduleSchema>;
