import { pino, type Logger } from "pino";

export type { Logger } from "pino";

/** Where log lines go: anything with `write` (a stream, or the CLI's terminal). */
export interface LogSink {
  write(chunk: string): unknown;
}

interface LoggerOptions {
  readonly level?: string | undefined;
  /** `json` (one object per line, default) or `pretty` (for people). */
  readonly format?: "json" | "pretty" | undefined;
  /** Where lines go: stderr in the CLI (stdout is for reports), a memory sink in tests. */
  readonly stream: LogSink;
  /** Secret values to scrub from every message and field, whatever its path. */
  readonly secrets?: readonly string[] | undefined;
  /** Bound to every line (e.g. `runId`). */
  readonly bindings?: Readonly<Record<string, unknown>> | undefined;
}

/** Paths that hold credentials in any object we might log (pino's redaction, by path). */
const REDACT_PATHS = [
  "*.authorization",
  "*.Authorization",
  "*.headers.authorization",
  "*.headers.Authorization",
  '*.headers["x-tinypm-token"]',
  "*.token",
  "*.password",
  "*.apiToken",
  "token",
  "password",
];

/**
 * Creates the run's root logger. Components take children (`logger.child({system: "jira"})`).
 * Besides pino's path redaction, every string in a line is scrubbed of the known secret values,
 * so a token that slipped into an error message or URL never reaches the log.
 */
export function createLogger(opts: LoggerOptions): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length >= 4);
  const scrub = (text: string): string =>
    secrets.reduce((t, s) => t.split(s).join("[REDACTED]"), text);
  const destination =
    opts.format === "pretty"
      ? prettyStream(opts.stream, scrub)
      : scrubbingStream(opts.stream, scrub, secrets.length > 0);
  return pino(
    {
      level: opts.level ?? "info",
      base: { ...opts.bindings },
      redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

function scrubbingStream(
  out: LogSink,
  scrub: (s: string) => string,
  active: boolean,
): { write(line: string): void } {
  return { write: (line: string) => out.write(active ? scrub(line) : line) };
}

/** A small built-in pretty printer: `12:00:01 INFO  [jira] message key=value`. */
function prettyStream(out: LogSink, scrub: (s: string) => string): { write(line: string): void } {
  const levels: Record<number, string> = {
    10: "TRACE",
    20: "DEBUG",
    30: "INFO ",
    40: "WARN ",
    50: "ERROR",
    60: "FATAL",
  };
  return {
    write(line: string) {
      const obj = JSON.parse(line) as Record<string, unknown>;
      const { level, time, msg, system, pid: _pid, hostname: _host, ...rest } = obj;
      const when = typeof time === "string" ? time.slice(11, 19) : "";
      const tag = typeof system === "string" ? ` [${system}]` : "";
      const extras = Object.entries(rest)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(" ");
      const text = `${when} ${levels[Number(level)] ?? String(level)}${tag} ${typeof msg === "string" ? msg : ""}${extras ? ` ${extras}` : ""}\n`;
      out.write(scrub(text));
    },
  };
}
