import { CommanderError, type Command } from "commander";
import { ExitCode, SyncError, UsageError, exitCodeFor } from "../core/errors.js";
import { writeLine, type CliContext } from "./context.js";
import { buildProgram } from "./program.js";
import { renderError } from "./render-error.js";

/** Runs the tool with `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const program = await buildProgram(ctx, argv[0]);
  try {
    await program.parseAsync([...argv], { from: "user" });
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.nothingDone;
    }
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(error, program, argv, ctx);
    const verbose = argv.includes("--verbose");
    writeLine(ctx.stderr, renderError(error, { verbose }));
    return error instanceof SyncError ? exitCodeFor(error) : ExitCode.internal;
  }
}

function commanderExit(
  error: CommanderError,
  program: Command,
  argv: readonly string[],
  ctx: CliContext,
): number {
  switch (error.code) {
    case "commander.helpDisplayed":
    case "commander.help":
    case "commander.version":
      return ExitCode.ok;
    default: {
      const message = error.message.replace(/^error: /, "");
      const usage = new UsageError(`${message}${validChoices(error, program, argv)}`, {
        hint: "Run `tinypm-sync --help` or `tinypm-sync <command> --help`.",
      });
      writeLine(ctx.stderr, renderError(usage));
      return ExitCode.nothingDone;
    }
  }
}

/** Names the valid commands or flags after an unknown one, at the depth the error was found. */
function validChoices(error: CommanderError, program: Command, argv: readonly string[]): string {
  let cmd = program;
  for (const word of argv) {
    const sub = cmd.commands.find((c) => c.name() === word);
    if (sub !== undefined) cmd = sub;
  }
  const where = cmd === program ? "" : ` for ${cmd.name()}`;
  if (error.code === "commander.unknownCommand") {
    return `. Valid commands${where}: ${cmd.commands.map((c) => c.name()).join(", ")}.`;
  }
  if (error.code === "commander.unknownOption") {
    const options = cmd.options.map((o) => o.long ?? o.short ?? "");
    return `. Valid options${where}: ${[...options, "--help"].filter(Boolean).join(", ")}.`;
  }
  return "";
}
