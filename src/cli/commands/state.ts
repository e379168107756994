import { existsSync } from "node:fs";
import { UsageError } from "../../core/errors.js";
import { copyState } from "../../state/copy-state.js";
import {
  describeStateLocation,
  openState,
  parseStateLocation,
  type StateLocation,
} from "../../state/open-state.js";
import type { StateStore } from "../../state/store.js";
import { logOptions } from "../options.js";
import type { RegisterCommand } from "./index.js";

interface MigrateFlags {
  readonly from: string;
  readonly to: string;
  readonly overwrite?: boolean;
  readonly json?: boolean;
}

/** A `--from`/`--to` value: a `postgres://` URL, or `env:NAME` for a URL kept in the environment. */
function locationOf(value: string, flag: string, env: CliEnv, cwd: string): StateLocation {
  const fromEnv = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value)?.[1];
  if (fromEnv === undefined) return parseStateLocation(value, cwd);
  const url = env[fromEnv];
  if (url === undefined || url === "") {
    throw new UsageError(`${flag} env:${fromEnv}: environment variable ${fromEnv} is not set.`, {
      hint: `Export ${fromEnv}=postgres://user:password@host:port/database first.`,
    });
  }
  return parseStateLocation(url, cwd);
}

type CliEnv = Readonly<Record<string, string | undefined>>;

/** `state migrate --from A --to B`: copies a state between SQLite files and PostgreSQL databases. */
export const registerState: RegisterCommand = (program, ctx) => {
  const state = program
    .command("state")
    .description("manage the state itself: copy it between SQLite and PostgreSQL");
  const migrate = state
    .command("migrate")
    .description(
      "copy a state from one backend to another (SQLite file or postgres:// URL, either way), verified by row counts and hashes per table",
    )
    .requiredOption(
      "--from <path|url>",
      "the state to copy: an SQLite file, a postgres:// URL, or env:NAME (a URL in $NAME)",
    )
    .requiredOption("--to <path|url>", "where to copy it (created or migrated as needed)")
    .option("--overwrite", "replace what the destination holds (refused otherwise)")
    .option("--json", "print the per-table counts and hashes as JSON");
  logOptions(migrate).action(async (flags: MigrateFlags) => {
    const from = locationOf(flags.from, "--from", ctx.env, ctx.cwd);
    const to = locationOf(flags.to, "--to", ctx.env, ctx.cwd);
    const fromText = describeStateLocation(from);
    const toText = describeStateLocation(to);
    if (fromText === toText) {
      throw new UsageError(`--from and --to name the same state (${fromText}).`, {
        hint: "Copy into another SQLite file or another PostgreSQL database.",
      });
    }
    if (from.backend === "sqlite" && !existsSync(from.path)) {
      throw new UsageError(`--from ${from.path}: there is no state file there.`, {
        hint: "Give the path of the SQLite state file (`state.path` in the config).",
      });
    }
    const source = await openState(from, { readOnly: true });
    let destination: StateStore | undefined;
    try {
      destination = await openState(to);
      const copy = await copyState(source, destination, { overwrite: flags.overwrite === true });
      if (flags.json === true) {
        ctx.stdout.write(`${JSON.stringify({ from: fromText, to: toText, ...copy })}\n`);
        return;
      }
      const lines = [`Copied ${fromText} → ${toText}`, ""];
      for (const t of copy.tables) {
        lines.push(
          `  ${t.table.padEnd(14)} ${String(t.rows).padStart(8)} rows  sha256 ${t.sha256.slice(0, 16)}  ✓ same on both sides`,
        );
      }
      lines.push("", "Verified: every table has the same row count and hash on both sides.");
      ctx.stdout.write(`${lines.join("\n")}\n`);
    } finally {
      await destination?.close();
      await source.close();
    }
  });
};
