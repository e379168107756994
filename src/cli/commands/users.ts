import { writeFileSync } from "node:fs";
import { renderUserMapFile } from "../../mapping/user-map-write.js";
import { parseUserMap } from "../../mapping/users.js";
import { laneRead } from "../../sync/read/run-read.js";
import { readAndMatchUsers } from "../../sync/read/user-read.js";
import { writeLine } from "../context.js";
import { configOption, logOptions } from "../options.js";
import { openJob } from "../../library/job-session.js";
import { openOneJob } from "../session.js";
import { usersJson, usersText, type UsersView } from "../users-output.js";
import type { RegisterCommand } from "./index.js";
import { systemLabel } from "../../core/system-label.js";

interface UsersFlags {
  config: string;
  job?: string;
  json?: boolean;
  write?: string;
  logLevel?: string;
  logFormat?: "json" | "pretty";
}

/**
 * `users`: the job's tinyPM users, the target users who can be assigned, and how they match
 * (user map, email, login, display name; ambiguous and unmatched listed); `--write` a user-map
 * skeleton. Reads only.
 */
export const registerUsers: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("users")
    .description(
      "list tinyPM users, the target users who can be assigned, and the match table (matched by what, ambiguous, unmatched); reads only",
    )
    .option("-j, --job <name>", "the job whose users to match (default: the config's only job)");
  configOption(cmd)
    .option("--json", "print one JSON object instead of the table")
    .option(
      "--write <file>",
      "write a user-map YAML: matches filled in, open cases as commented placeholders",
    );
  logOptions(cmd).action(async (flags: UsersFlags) => {
    const { session, resolved } = openOneJob(ctx, flags.config, flags);
    const job = openJob(session, resolved, () => undefined, ctx.signal);
    try {
      const tinypmUsers = await laneRead(job.lanes, "tinypm", "list tinypm users", () =>
        job.tinypm.listUsers(),
      );
      const { targetUsers, result } = await readAndMatchUsers({
        tinypmUsers,
        target: job.target,
        userMap: job.userMap,
        policy: resolved.job.unmappedUsers,
        read: (name, run) =>
          laneRead(job.lanes, job.targetSystem, `${job.targetSystem}: ${name}`, () => run({})),
      });
      // The config's value, else the user-map file's, else skip (matchUsers decides).
      const policy = result.table.policy;
      const t = resolved.target;
      const view: UsersView = {
        job: resolved.job.name,
        targetSystem: t.type,
        targetName: t.type === "github" ? `${t.owner}/${t.repo}` : `project ${t.project}`,
        policy,
        tinypmUsers,
        targetUsers,
        result,
      };
      if (flags.write !== undefined) {
        const text = renderUserMapFile({
          job: view.job,
          target: `${systemLabel(t.type)} ${view.targetName}`,
          policy,
          placeholder: job.userMap?.placeholder,
          tinypmUsers,
          targetUsers,
          result,
        });
        parseUserMap(text, flags.write); // what we write must load as written
        writeFileSync(flags.write, text);
        for (const line of writtenLines(flags.write, view, resolved.usersPath))
          writeLine(ctx.stderr, line);
      }
      if (flags.json === true) writeLine(ctx.stdout, JSON.stringify(usersJson(view), null, 2));
      else for (const line of usersText(view)) writeLine(ctx.stdout, line);
    } finally {
      await job.close();
    }
  });
};

/**
 * What `--write` says: where the map went, that it is for this job's target, and how to use it —
 * the config's `users` (top-level, or the job's own when another job targets another system).
 */
function writtenLines(file: string, view: UsersView, current: string | undefined): string[] {
  const target = `${systemLabel(view.targetSystem)} ${view.targetName}`;
  return [
    `Wrote the user map for job ${view.job} (${target}) to ${file}.`,
    `To use it, point the config's "users" at it: "users": ${JSON.stringify(file)} — at the top level for every job, or in job ${view.job}'s own entry for this job only (a job's "users" overrides the top-level map).`,
    current === undefined
      ? "The job has no user map yet; until it does, users are matched by email, login and name only."
      : `The job reads ${current} now.`,
  ];
}
