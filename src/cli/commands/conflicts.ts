import { Option } from "commander";
import { UsageError } from "../../core/errors.js";
import { configOption, configPath, logOptions } from "../options.js";
import { openConfig, openState, type LogFlags } from "../session.js";
import type { RegisterCommand } from "./index.js";

const show = (v: unknown): string => (v === null || v === undefined ? "—" : JSON.stringify(v));

/** `conflicts list` and `conflicts resolve ID --take tinypm|target`. */
export const registerConflicts: RegisterCommand = (program, ctx) => {
  const conflicts = program
    .command("conflicts")
    .description("list open field conflicts, or resolve one by taking one side's value");
  const list = configOption(
    conflicts.command("list").description("list open conflicts with both values"),
  ).option("--json", "print them as JSON");
  logOptions(list).action(async (flags: { config?: string; json?: boolean } & LogFlags) => {
    const { loaded } = openConfig(ctx, flags.config, {
      ...flags,
      secrets: "optional",
      logLevel: flags.logLevel ?? "warn",
    });
    const state = await openState(loaded, true);
    try {
      const open = await state.conflicts({ status: "open" });
      if (flags.json === true) {
        ctx.stdout.write(`${JSON.stringify(open)}\n`);
        return;
      }
      if (open.length === 0) {
        ctx.stdout.write("No open conflicts.\n");
        return;
      }
      for (const c of open) {
        ctx.stdout.write(
          `#${c.id} ${c.job} ${c.kind} ${c.tinypmId} ⇄ ${c.targetId} field ${c.field}\n  base:   ${show(c.baseValue)}\n  tinyPM: ${show(c.tinypmValue)}\n  target: ${show(c.targetValue)}\n`,
        );
      }
      ctx.stdout.write(
        `\nResolve one with: tinypm-sync conflicts resolve <id> --take tinypm|target --config ${configPath(ctx, flags.config)}\n`,
      );
    } finally {
      await state.close();
    }
  });
  const resolve = configOption(
    conflicts
      .command("resolve")
      .description(
        "resolve a conflict: the next sync writes the chosen side's value to the other side",
      )
      .argument("<id>", "the conflict id from `conflicts list`"),
  )
    .addOption(
      new Option("--take <side>", "the side whose value wins")
        .choices(["tinypm", "target"])
        .makeOptionMandatory(),
    )
    .option(
      "--reopen",
      "change a decision already taken (not yet applied by a sync): without it, resolving a resolved conflict with the other side is refused (exit 2, conflict_resolved)",
    );
  logOptions(resolve).action(
    async (
      id: string,
      flags: { config?: string; take: "tinypm" | "target"; reopen?: boolean } & LogFlags,
    ) => {
      const n = Number(id);
      if (!Number.isInteger(n) || n <= 0)
        throw new UsageError(`"${id}" is not a conflict id.`, {
          hint: "Use an id from `tinypm-sync conflicts list`.",
        });
      const { loaded } = openConfig(ctx, flags.config, {
        ...flags,
        secrets: "optional",
        logLevel: flags.logLevel ?? "warn",
      });
      const state = await openState(loaded, false);
      try {
        const before = (await state.conflicts()).find((x) => x.id === n);
        const c = await state.resolveConflict(n, flags.take, flags.reopen === true);
        const was = before?.status === "resolved" ? before.resolution : undefined;
        const how =
          was === flags.take
            ? `already resolved at ${c.resolvedAt ?? "?"}: ${flags.take} wins (nothing changed)`
            : was !== undefined
              ? `reopened and resolved again: ${flags.take} wins (was ${was})`
              : `resolved: ${flags.take} wins`;
        ctx.stdout.write(
          `Conflict #${c.id} (${c.kind} ${c.tinypmId}, field ${c.field}) ${how}. The next sync applies it.\n`,
        );
      } finally {
        await state.close();
      }
    },
  );
  for (const sub of conflicts.commands)
    sub.exitOverride().configureOutput(program.configureOutput());
};
