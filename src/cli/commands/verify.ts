import { writeFileSync } from "node:fs";
import { verifyResolvedJob } from "../../library/verify-job.js";
import { ExitCode } from "../../core/errors.js";
import { renderVerify } from "../../report/verify-render.js";
import { verifyClean } from "../../report/verify-types.js";
import { logEvent } from "../job-run.js";
import { retryBursts } from "../retry-bursts.js";
import { configOption, logOptions, reportOptions, type JobCommandFlags } from "../options.js";
import { openOneJob } from "../session.js";
import type { RegisterCommand } from "./index.js";

interface VerifyFlags extends JobCommandFlags {
  job?: string;
  json?: boolean;
}

/** `verify`: both sides read and compared pair by pair; exit 0 when all equal, 4 otherwise. */
export const registerVerify: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("verify")
    .description(
      "read both sides and compare every linked pair field by field, and list items linked on neither side; writes nothing; exit 0 when all equal, 4 when anything differs",
    )
    .option("-j, --job <name>", "the job to verify (default: the config's only job)");
  configOption(cmd);
  reportOptions(cmd).option("--json", "the same as --format json");
  logOptions(cmd).action(async (flags: VerifyFlags) => {
    const { session, resolved } = openOneJob(ctx, flags.config, flags);
    const log = session.logger.child({ job: resolved.job.name });
    const bursts = retryBursts();
    const report = await verifyResolvedJob(session, resolved, {
      signal: ctx.signal,
      onEvent: (e) => {
        logEvent(log, e, bursts);
      },
    });
    const text = renderVerify(report, flags.json === true ? "json" : flags.format);
    if (flags.out === undefined) ctx.stdout.write(text);
    else {
      writeFileSync(flags.out, text);
      ctx.stderr.write(`Report written to ${flags.out}\n`);
    }
    ctx.exitCode = verifyClean(report) ? ExitCode.ok : ExitCode.itemsFailed;
  });
};
