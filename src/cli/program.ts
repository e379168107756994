import { readFileSync } from "node:fs";
import { Command } from "commander";
import type { CliContext } from "./context.js";
import { COMMANDS } from "./commands/index.js";
import { packageFile } from "./package-files.js";

/** The tool's version, read from package.json beside `src/` or `dist/`. */
export function toolVersion(): string {
  const raw = readFileSync(packageFile("package.json"), "utf8");
  const pkg = JSON.parse(raw) as { version?: unknown };
  return typeof pkg.version === "string" ? pkg.version : "0.0.0";
}

/**
 * Builds the command-line program. Commander never exits or prints by itself: its output goes
 * to the context's streams and its exits become exceptions that `run` turns into exit codes.
 * Given the command about to run (`argv[0]`), only that command's file is loaded; anything else
 * (no command, `--help`, a mistyped one that needs suggestions) loads them all.
 */
export async function buildProgram(ctx: CliContext, command?: string): Promise<Command> {
  const program = new Command("tinypm-sync")
    .description(
      "Migrate and keep in sync tinyPM projects with GitHub Issues or Jira (migrations, scheduled syncs, dry-run reports).",
    )
    .version(toolVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    .allowExcessArguments(false)
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      outputError: () => undefined, // `run` renders usage errors itself, with the valid choices
    })
    .exitOverride();
  const one = COMMANDS.find((c) => c.name === command);
  const wanted =
    command === "-V" || command === "--version" ? [] : one === undefined ? COMMANDS : [one];
  const registers = await Promise.all(wanted.map((c) => c.load()));
  for (const register of registers) register(program, ctx);
  // Every subcommand shares the parent's output, error and exit handling.
  for (const cmd of program.commands) {
    cmd.exitOverride().allowExcessArguments(false).configureOutput(program.configureOutput());
  }
  return program;
}
