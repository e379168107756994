import type { CliContext } from "./context.js";

/** A sink log lines are written to (pino's destination needs only `write`). */
export interface LineSink {
  write(chunk: string): unknown;
}

/**
 * stderr shared by the logs and the progress line. On a terminal, a log line first clears the
 * progress line, then the progress line is painted again below it, so the two never run together.
 */
export interface Terminal {
  /** stderr is a terminal (and not CI): the progress line is drawn. */
  readonly tty: boolean;
  /** Where loggers write; keeps the progress line below the logs. */
  readonly logStream: LineSink;
  /** Paints (or repaints) the one-line status at the bottom. */
  setStatus(line: string): void;
  /** Removes the status line (the run ended). */
  clearStatus(): void;
}

const CLEAR = "\r\x1b[2K";
const terminals = new WeakMap<object, Terminal>();

/** The terminal of a context's stderr (one per stream, shared by every logger and progress). */
export function terminalOf(ctx: Pick<CliContext, "stderr" | "env">): Terminal {
  const known = terminals.get(ctx.stderr);
  if (known !== undefined) return known;
  const made = createTerminal(ctx);
  terminals.set(ctx.stderr, made);
  return made;
}

function createTerminal(ctx: Pick<CliContext, "stderr" | "env">): Terminal {
  const out = ctx.stderr;
  const tty = out.isTTY === true && ctx.env.CI === undefined;
  let status = "";
  const fit = (line: string): string => {
    const columns = (out as { columns?: number }).columns;
    // A line wider than the terminal wraps, and `\r` would then clear only its last row.
    return columns !== undefined && columns > 1 && line.length >= columns
      ? `${line.slice(0, columns - 2)}…`
      : line;
  };
  return {
    tty,
    logStream: {
      write(chunk: string) {
        if (!tty || status === "") return out.write(chunk);
        return out.write(`${CLEAR}${chunk}${status}`);
      },
    },
    setStatus(line) {
      if (!tty) return;
      status = fit(line);
      out.write(`${CLEAR}${status}`);
    },
    clearStatus() {
      if (!tty || status === "") return;
      status = "";
      out.write(CLEAR);
    },
  };
}
