import { openConfig, openState } from "../session.js";
import { configOption } from "../options.js";
import { jobStatusJson, type StatusJson } from "../json-output.js";
import type { RegisterCommand } from "./index.js";

/** `status`: links, last runs, parked failures and open conflicts, per job (read-only). */
export const registerStatus: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("status")
    .description("links, last runs, parked failures and open conflicts of every job");
  configOption(cmd)
    .option("--json", "print the status as one JSON object")
    .action((flags: { config: string; json?: boolean }) => {
      const { loaded } = openConfig(ctx, flags.config, { secrets: "optional", logLevel: "silent" });
      const state = openState(loaded, true);
      try {
        const jobs = loaded.config.jobs.map((job) =>
          jobStatusJson({
            job: job.name,
            target: job.target,
            links: state.countLinks(job.name),
            runs: state.runs({ job: job.name, limit: 5 }),
            failures: state.failures(job.name),
            conflicts: state.conflicts({ job: job.name, status: "open" }),
          }),
        );
        const out: StatusJson = { state: loaded.statePath, jobs };
        if (flags.json === true) {
          ctx.stdout.write(`${JSON.stringify(out)}\n`);
          return;
        }
        ctx.stdout.write(statusText(out));
      } finally {
        state.close();
      }
    });
};

/** The status for people: one block per job. */
function statusText(status: StatusJson): string {
  const lines = [`State: ${status.state}`];
  for (const j of status.jobs) {
    lines.push("", `Job ${j.job} → ${j.target}: ${j.links} linked item${j.links === 1 ? "" : "s"}`);
    const last = j.lastRuns[0];
    lines.push(
      last
        ? `  last run: ${last.mode} ${last.outcome} at ${last.finishedAt ?? last.startedAt} ${JSON.stringify(last.counts)}`
        : "  never run",
    );
    const rebuilt = last?.counts.linksRebuilt ?? 0;
    if (last !== undefined)
      lines.push(
        `  links rebuilt from markers or content in the last run: ${rebuilt}` +
          (rebuilt > 0 ? " (the state did not hold them; see docs/sync.md, Identity)" : ""),
      );
    lines.push(`  parked failures: ${j.failures.length}`);
    for (const f of j.failures)
      lines.push(
        `    - ${f.kind} ${f.tinypmId ?? f.targetId ?? "?"}: [${f.code}] ${f.message} (${f.attempts}×)`,
      );
    lines.push(
      `  open conflicts: ${j.conflicts.length}${j.conflicts.length > 0 ? " (see `tinypm-sync conflicts list`)" : ""}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
