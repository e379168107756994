import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Option } from "commander";
import { createTarget, createTinypm } from "../../adapters/registry.js";
import type { GithubConnection, JiraConnection } from "../../adapters/connection.js";
import type { ReferenceServer } from "../../reference-server/index.js";
import type { WorkItem } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { CliContext } from "../context.js";
import { writeDemoUserMap, type DemoUsers } from "../demo-users.js";
import { runConfiguredJob } from "../job-run.js";
import { printRun, settleRuns } from "../run-report.js";
import { openConfig, type LogFlags } from "../session.js";
import { logOptions } from "../options.js";
import type { RegisterCommand } from "./index.js";
import { systemLabel } from "../../core/system-label.js";
import { UsageError } from "../../core/errors.js";
import { boardLines } from "../demo-board.js";
import { loadMapping } from "../../mapping/load.js";
import { boardSpecOf } from "../../mapping/project.js";
import { packageFile } from "../package-files.js";

const MAPPINGS = packageFile("mappings/");

/** The generated tinyPM project's people; each sandbox gets an account for every one of them. */
const DEMO_USERS = ["alice", "bob", "carol", "dave", "erin", "frank"];

interface Sandbox {
  readonly url: string;
  readonly token: string;
  /** tinyPM login → the sandbox account made for that person. */
  readonly accounts: ReadonlyMap<string, string>;
  close(): Promise<void>;
  readonly target: Record<string, unknown>;
  readonly env: Record<string, string>;
}

/** The title of the Project (v2) board `demo --board` makes on the GitHub sandbox. */
const BOARD_TITLE = "tinyPM board";

async function startTarget(
  kind: "github" | "jira",
  datacenter = false,
  board = false,
): Promise<Sandbox> {
  // The servers are loaded when the demo runs: every other command starts without them.
  if (kind === "github") {
    const { startGithubSandbox } = await import("../../sandboxes/github/index.js");
    const s = await startGithubSandbox({ users: DEMO_USERS });
    return {
      url: s.url,
      token: s.token,
      accounts: new Map(DEMO_USERS.map((login) => [login, login])),
      close: () => s.close(),
      env: { GITHUB_TOKEN: s.token },
      target: {
        type: "github",
        baseUrl: s.url,
        owner: s.owner,
        repo: s.repo,
        tokenEnv: "GITHUB_TOKEN",
        importApi: false,
        limits: { writesPerMinute: 100000, writesPerHour: 1000000 },
        // `--board`: a Project (v2) board the first migration creates by its title.
        ...(board && { project: { owner: s.owner, title: BOARD_TITLE } }),
      },
    };
  }
  const { startJiraSandbox } = await import("../../sandboxes/jira/index.js");
  const s = await startJiraSandbox({
    users: DEMO_USERS,
    ...(datacenter && { deployment: "datacenter" as const }),
  });
  if (datacenter) {
    // Jira Data Center: users by name (the login), the token a personal access token.
    return {
      url: s.url,
      token: s.token,
      accounts: new Map(DEMO_USERS.map((login) => [login, login])),
      close: () => s.close(),
      env: { JIRA_TOKEN: s.token },
      target: {
        type: "jira",
        deployment: "datacenter",
        baseUrl: s.url,
        project: s.projectKey,
        tokenEnv: "JIRA_TOKEN",
      },
    };
  }
  return {
    url: s.url,
    token: s.token,
    accounts: new Map(DEMO_USERS.map((login) => [login, `acc-${login}`])),
    close: () => s.close(),
    env: { JIRA_EMAIL: s.email, JIRA_TOKEN: s.token },
    target: {
      type: "jira",
      baseUrl: s.url,
      project: s.projectKey,
      emailEnv: "JIRA_EMAIL",
      tokenEnv: "JIRA_TOKEN",
    },
  };
}

/**
 * `demo`: the main job on the embedded default, with no configuration and no network — a
 * generated tinyPM project is migrated to a local sandbox, one item is edited on each side, a
 * sync brings the edits across, and the report is printed.
 */
export const registerDemo: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("demo")
    .description(
      "run the main job on embedded defaults: local tinyPM and GitHub (or Jira, or Jira Data Center with jira-dc) servers, a migration, an edit on each side, a sync, the report",
    )
    .addOption(
      new Option("--target <target>", "the target sandbox")
        .choices(["github", "jira", "jira-dc"])
        .default("github"),
    )
    .option("--keep", "leave the servers running afterwards and print their URLs and tokens")
    .option(
      "--board",
      "GitHub only: also put the issues on a GitHub Project (v2) board (status, iteration, estimate and priority as its fields)",
    )
    .option("--stories <n>", "stories in the generated project", "12");
  logOptions(cmd).action(
    async (
      flags: {
        target: "github" | "jira" | "jira-dc";
        keep?: boolean;
        board?: boolean;
        stories: string;
      } & LogFlags,
    ) => {
      if (flags.board === true && flags.target !== "github")
        throw new UsageError(
          `--board puts the issues on a GitHub Project board; the target is ${flags.target}.`,
          {
            hint: "Run `tinypm-sync demo --board` (GitHub is the default target), or leave out --board.",
          },
        );
      // `jira-dc`: the Jira job against the Data Center sandbox.
      const kind = flags.target === "github" ? "github" : "jira";
      const dir = mkdtempSync(join(tmpdir(), "tinypm-sync-demo-"));
      const { startReferenceServer } = await import("../../reference-server/index.js");
      const tinypm = await startReferenceServer({
        generate: `stories=${Number(flags.stories) || 12},tasks=2,comments=1`,
        seed: 7,
      });
      const board = flags.board === true;
      const target = await startTarget(kind, flags.target === "jira-dc", board);
      try {
        const datacenter = flags.target === "jira-dc";
        await demo(ctx, {
          dir,
          tinypm,
          target,
          kind,
          datacenter,
          board,
          log: flags,
          keep: flags.keep === true,
        });
        if (flags.keep === true) {
          ctx.stdout.write(keepLines({ dir, tinypm, target, kind, datacenter }));
          await ctx.waitForStop();
        }
      } finally {
        await Promise.allSettled([tinypm.close(), target.close()]);
        if (flags.keep !== true) rmSync(dir, { recursive: true, force: true });
      }
    },
  );
};

/** What `--keep` prints: where the servers are, their (local, throwaway) tokens, how to go on. */
function keepLines(o: DemoServers): string {
  const config = join(o.dir, "config.json");
  const exports = Object.entries({ TINYPM_TOKEN: o.tinypm.token, ...o.target.env })
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return [
    "",
    `tinyPM reference server: ${o.tinypm.url}`,
    `  token: ${o.tinypm.token}`,
    `${sandboxName(o)} sandbox: ${o.target.url}`,
    `  token: ${o.target.token}${o.datacenter === true ? " (a personal access token, sent as Bearer)" : ""}`,
    ...(o.target.env.JIRA_EMAIL === undefined ? [] : [`  email: ${o.target.env.JIRA_EMAIL}`]),
    `Folder: ${o.dir} (the config, the state and the user map; kept after Ctrl-C — remove it with \`rm -rf ${o.dir}\`)`,
    `Config: ${config}`,
    `Try:   export ${exports}`,
    `       npx tinypm-sync status --config ${config}`,
    `       npx tinypm-sync plan --config ${config} --format html --out plan.html`,
    "Press Ctrl-C to stop the servers.",
    "",
  ].join("\n");
}

/** Writes the demo's config (the embedded default job against the local servers). */
function writeDemoConfig(o: DemoServers, users: DemoUsers["map"]): string {
  const config = {
    tinypm: { baseUrl: o.tinypm.url, tokenEnv: "TINYPM_TOKEN" },
    ...(users !== undefined && { users: users.file }),
    targets: { [o.kind]: o.target.target },
    jobs: [
      {
        name: "demo",
        tinypmProject: 1,
        target: o.kind,
        mapping: join(MAPPINGS, o.board === true ? "github-project.yaml" : `${o.kind}.yaml`),
        direction: "both",
        conflicts: "manual",
        onDelete: "close",
      },
    ],
    state: { path: join(o.dir, "state.db") },
    log: { level: "warn", format: "pretty" },
  };
  const file = join(o.dir, "config.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

interface DemoServers {
  dir: string;
  tinypm: ReferenceServer;
  target: Sandbox;
  kind: "github" | "jira";
  /** `--target jira-dc`: the Jira sandbox serves Jira Data Center. */
  datacenter?: boolean;
  /** `--board`: the GitHub issues are on a Project (v2) board too. */
  board?: boolean;
  /** --log-level / --log-format, over the demo config's `warn` and pretty lines. */
  log?: LogFlags;
  /** `--keep`: the servers and the folder stay after the demo. */
  keep?: boolean;
}

/** The sandbox as the demo names it: `Jira Data Center` for `--target jira-dc`. */
function sandboxName(o: DemoServers): string {
  return o.datacenter === true ? "Jira Data Center" : systemLabel(o.kind);
}

/** The demo's first line: what it started, where, and that it is all local and temporary. */
function startedLine(o: DemoServers): string {
  return `Started a tinyPM reference server with a generated project (${o.tinypm.url}) and a ${sandboxName(o)} sandbox (${o.target.url}), on this machine only${o.keep === true ? "" : "; both stop when the demo ends"}.`;
}

/** The demo's last lines: how to read the reports above, and what to do next. */
function closingLines(name: string): string[] {
  return [
    "",
    "Reading the reports: each run lists what it created, updated or left unchanged on each side;",
    `"story" and "task" rows are tinyPM's stories and tasks (numbered apart: tinyPM story #1 and tinyPM task #1`,
    `are two items), their ${name} copies named beside them; "not read this run" counts linked items in`,
    "closed iterations, which a sync reads in full every 12 runs or with --full.",
    "",
    "Next steps:",
    "  npx tinypm-sync demo --keep              keep the servers running and try the commands on them",
    "  cp config.example.json tinypm-sync.json  then edit it for your tinyPM and target (README.md)",
    "  npx tinypm-sync check                    validate the config and probe each system",
    "  npx tinypm-sync plan --migrate           a dry run of the migration: writes nothing",
  ];
}

async function demo(ctx: CliContext, o: DemoServers): Promise<void> {
  const name = systemLabel(o.kind);
  ctx.stdout.write(`${startedLine(o)}\n\n`);
  const users = await demoUsers(o, name);
  if (users.map !== undefined)
    ctx.stdout.write(
      `${name} shows no email for ${users.map.users.join(", ")} (as most ${name} profiles do), so no rule can match them: the demo mapped them in a user map${o.keep === true ? `, ${users.map.file}` : " (a temporary file, removed when the demo ends; `demo --keep` keeps it)"}. For your own site: npx tinypm-sync users --job NAME --write users.yaml\n`,
    );
  ctx.stdout.write(`${users.line}\n\n`);
  const file = writeDemoConfig(o, users.map);
  const demoCtx: CliContext = Object.assign(Object.create(ctx) as CliContext, {
    env: { ...ctx.env, TINYPM_TOKEN: o.tinypm.token, ...o.target.env },
  });
  const session = openConfig(demoCtx, file, { ...o.log });
  const [job] = session.loaded.jobs;
  if (job === undefined) return;
  ctx.stdout.write(
    `== 1. Migrating the generated tinyPM project to the ${sandboxName(o)} sandbox\n`,
  );
  const migration = await runConfiguredJob(demoCtx, session, job, {
    mode: "migrate",
    dryRun: false,
  });
  printRun(ctx, migration, {});
  if (ctx.signal.aborted) settleRuns(ctx, [migration]);
  if (o.board === true) await printBoard(ctx, o);
  ctx.stdout.write(`\n== 2. Editing one story in tinyPM and one issue in ${name}\n`);
  await editBothSides(ctx, o, name);
  ctx.stdout.write(`\n== 3. Syncing both ways\n`);
  const sync = await runConfiguredJob(demoCtx, session, job, { mode: "sync", dryRun: false });
  printRun(ctx, sync, {});
  for (const line of closingLines(name)) ctx.stdout.write(`${line}\n`);
  settleRuns(ctx, [migration, sync]);
}

/** An adapter on the demo's target sandbox (with `--board`, reading the board's values too). */
function openTarget(o: DemoServers): Tracker {
  return createTarget(
    o.kind === "github"
      ? {
          ...(o.target.target as Omit<GithubConnection, "token">),
          token: o.target.token,
          ...(o.board === true && {
            board: boardSpecOf(loadMapping(join(MAPPINGS, "github-project.yaml"))),
          }),
        }
      : {
          ...(o.target.target as Omit<JiraConnection, "token" | "email">),
          email: o.target.env.JIRA_EMAIL ?? "",
          token: o.target.token,
        },
  );
}

/** The user map for the people the target hides (see demo-users.ts), if any. */
async function demoUsers(o: DemoServers, name: string): Promise<DemoUsers> {
  const tinypm = createTinypm({ baseUrl: o.tinypm.url, token: o.tinypm.token, projectId: 1 });
  const target = openTarget(o);
  try {
    return await writeDemoUserMap({
      dir: o.dir,
      tinypm,
      target,
      accounts: o.target.accounts,
      targetName: name,
    });
  } finally {
    await Promise.allSettled([tinypm.close(), target.close()]);
  }
}

/** Renames the first story in tinyPM and edits the second one's copy on the target. */
async function editBothSides(ctx: CliContext, o: DemoServers, name: string): Promise<void> {
  const tinypmTracker = createTinypm({
    baseUrl: o.tinypm.url,
    token: o.tinypm.token,
    projectId: 1,
  });
  const targetTracker = openTarget(o);
  try {
    const [story, other] = await stories(tinypmTracker);
    if (story) {
      await tinypmTracker.update(
        { kind: "story", id: story.id },
        { set: { title: `${story.title} (edited in tinyPM)` }, base: story },
      );
      ctx.stdout.write(`tinyPM: renamed story "${story.title}"\n`);
    }
    const link = other ? await findCopy(targetTracker, other.id) : undefined;
    if (link) {
      await targetTracker.update(
        { kind: "story", id: link.id },
        { set: { description: `${link.description ?? ""}\n\nEdited in ${name}.`.trim() } },
      );
      ctx.stdout.write(`${name}: edited the description of "${link.title}"\n`);
    }
  } finally {
    await Promise.allSettled([tinypmTracker.close(), targetTracker.close()]);
  }
}

async function stories(tracker: Tracker): Promise<WorkItem[]> {
  const out: WorkItem[] = [];
  for await (const item of tracker.list({ kind: "story" })) {
    out.push(item);
    if (out.length === 2) break;
  }
  return out;
}

async function findCopy(target: Tracker, tinypmId: string): Promise<WorkItem | undefined> {
  return target.findByMarker({
    job: "demo",
    origin: "tinypm",
    originKind: "story",
    originId: tinypmId,
  });
}

/** The board as the migration left it, read back from the sandbox: its columns and their cards. */
async function printBoard(ctx: CliContext, o: DemoServers): Promise<void> {
  const target = openTarget(o);
  try {
    const stories: WorkItem[] = [];
    for await (const item of target.list({ kind: "story" })) stories.push(item);
    ctx.stdout.write(`\n${boardLines(BOARD_TITLE, stories).join("\n")}\n`);
  } finally {
    await target.close();
  }
}
