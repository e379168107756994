import { writeFileSync } from "node:fs";
import { createTinypm, exportProject } from "../../adapters/registry.js";
import { configOption, logOptions } from "../options.js";
import { openOneJob } from "../session.js";
import type { RegisterCommand } from "./index.js";

/** `export`: the job's tinyPM project as a JSON archive (docs/export-format.md). */
export const registerExport: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("export")
    .description(
      "write the job's tinyPM project (stories, tasks, comments, time entries, users, iterations) as a JSON archive",
    )
    .option(
      "-j, --job <name>",
      "the job whose tinyPM project to export (default: the config's only job)",
    );
  configOption(cmd).option(
    "-o, --out <file>",
    "write the archive to a file (default: stdout, and nothing else on stdout)",
  );
  logOptions(cmd).action(
    async (flags: {
      config?: string;
      job?: string;
      out?: string;
      logLevel?: string;
      logFormat?: "json" | "pretty";
    }) => {
      const { session, resolved } = openOneJob(ctx, flags.config, flags);
      const tracker = createTinypm({
        baseUrl: resolved.tinypm.baseUrl,
        token: resolved.tinypm.token,
        projectId: resolved.job.tinypmProject,
        timeoutMs: resolved.tinypm.timeoutMs,
        logger: session.logger.child({ system: "tinypm" }),
      });
      const tty = ctx.stderr.isTTY === true;
      try {
        const archive = await exportProject(tracker, {
          signal: ctx.signal,
          onProgress: (done, total) => {
            if (tty) ctx.stderr.write(`\r\x1b[2KExporting: ${done}/${total} stories`);
          },
        });
        if (tty) ctx.stderr.write("\r\x1b[2K");
        const text = `${JSON.stringify(archive, null, 2)}\n`;
        if (flags.out === undefined) {
          ctx.stdout.write(text);
        } else {
          writeFileSync(flags.out, text);
          ctx.stderr.write(`Exported ${archive.stories.length} stories to ${flags.out}\n`);
        }
      } finally {
        await tracker.close();
      }
    },
  );
};
