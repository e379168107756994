import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypm } from "../../src/adapters/registry.js";
import type { WorkItem } from "../../src/core/model.js";
import type { Report } from "../../src/report/types.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe } from "./serve-support.js";
import { runCliProcess } from "./spawn.js";

/**
 * The deletion guard (issue 31): a target emptied under a kept state (a repository recreated, a
 * Jira project wiped) or an emptied tinyPM project makes the plan delete or close every linked
 * item. `sync` and `migrate` then write nothing and exit 3 with `mass_delete`; `--allow-deletes`
 * lets one run through; a deletion below the limit goes through as before; `plan` says the run
 * would stop. Real servers, the built CLI, a real SQLite state.
 */
const STORIES = 20;

interface World {
  servers: Servers;
  config: string;
  cli: (...args: string[]) => ReturnType<typeof runCliProcess>;
  cleanup: () => Promise<void>;
}

async function startWorld(onDelete: "close" | "delete"): Promise<World> {
  const tmp = tempDir();
  const servers = await startServers(`stories=${STORIES},tasks=0,comments=0`);
  const config = writeConfig(tmp.dir, servers);
  editConfig(config, (c) => {
    c.jobs = c.jobs.map((j) => ({ ...j, onDelete }));
  });
  return {
    servers,
    config,
    cli: (...args) =>
      runCliProcess([...args, "--config", config, "--log-level", "warn"], {
        env: { ...servers.env },
      }),
    cleanup: async () => {
      await servers.close();
      tmp.cleanup();
    },
  };
}

async function collect(items: AsyncIterable<WorkItem>): Promise<WorkItem[]> {
  const out: WorkItem[] = [];
  for await (const i of items) out.push(i);
  return out;
}

function tinypmOf(w: World) {
  return createTinypm({
    baseUrl: w.servers.tinypm.url,
    token: w.servers.tinypm.token,
    projectId: 1,
  });
}

async function tinypmStories(w: World): Promise<WorkItem[]> {
  const tinypm = tinypmOf(w);
  try {
    return (await collect(tinypm.list({}))).filter((i) => i.kind === "story");
  } finally {
    await tinypm.close();
  }
}

async function targetIssues(w: World, job: "gh" | "jr"): Promise<WorkItem[]> {
  const target = jobTarget(w.servers, job);
  try {
    return await collect(target.list({}));
  } finally {
    await target.close();
  }
}

/** Writes each server counted (`/_sandbox/stats`): tinyPM, GitHub, Jira. */
async function writes(w: World): Promise<Record<string, number>> {
  const read = async (origin: string): Promise<number> =>
    ((await (await fetch(`${origin}/_sandbox/stats`)).json()) as { writes: number }).writes;
  return {
    tinypm: await read(w.servers.tinypm.origin),
    github: await read(w.servers.github.url),
    jira: await read(w.servers.jira.url),
  };
}

async function emptySandbox(url: string): Promise<void> {
  const res = await fetch(`${url}/_sandbox/reset`, { method: "POST" });
  if (!res.ok) throw new Error(`POST ${url}/_sandbox/reset answered ${res.status}`);
}

/** A set-up step that must succeed. */
function must(run: { code: number | null; stderr: string }): void {
  if (run.code !== 0) throw new Error(`exit ${run.code}: ${run.stderr}`);
}

/**
 * The three worlds below (an emptied GitHub sandbox, an emptied Jira sandbox, an emptied tinyPM
 * project) share nothing, each with its own servers, config and state: they run side by side
 * (`describe.concurrent`), while the steps of one world run in order, each on what the one
 * before left (`STEP`: not concurrent). A step waits on CLI runs that share the machine with the
 * other worlds': its timeout is three times the default.
 */
const WORLD = { timeout: 180_000 };
const STEP = { concurrent: false };

// A migration leaves the target's feed checkpoint past its own writes, and a feed never claims a
// complete read: the run that reads the whole repository or project is `sync --repair-markers`
// (or a sync without a checkpoint, as serve's below).
describe.concurrent.each([
  {
    job: "gh",
    system: "GitHub",
    sandbox: (s: Servers) => s.github.url,
    full: ["--repair-markers"],
  },
  { job: "jr", system: "Jira", sandbox: (s: Servers) => s.jira.url, full: ["--repair-markers"] },
] as const)(
  "an emptied $system sandbox, onDelete: delete",
  WORLD,
  ({ job, system, sandbox, full }) => {
    const plan = (...args: string[]) => w.cli("sync", "--dry-run", ...full, "--job", job, ...args);
    let w: World;
    beforeAll(async () => {
      w = await startWorld("delete");
      must(await w.cli("migrate", "--job", job));
      if ((await targetIssues(w, job)).length !== STORIES)
        throw new Error("migrate copied too few");
      // Every issue is deleted (GitHub then answers 410 for each: a 404 would be one the token
      // no longer sees, never a deletion), or the project recreated empty, while the state still
      // links every story.
      if (job === "gh")
        for (const issue of await targetIssues(w, job)) {
          const res = await fetch(`${sandbox(w.servers)}/_sandbox/issues/${issue.id}/delete`, {
            method: "POST",
          });
          if (!res.ok) throw new Error(`deleting issue ${issue.id} answered ${res.status}`);
        }
      else await emptySandbox(sandbox(w.servers));
    });
    afterAll(async () => {
      await w.cleanup();
    });

    it("plan shows that the run would stop, and why, in text and JSON", STEP, async () => {
      const text = await plan();
      expect(text.code).toBe(0);
      expect(text.stdout).toContain("a real sync or migrate would stop here and write nothing");
      expect(text.stdout).toContain(
        `${STORIES} of its ${STORIES} linked items are gone from ${system}`,
      );
      expect(text.stdout).toContain("--allow-deletes");
      const json = await plan("--format", "json");
      const report = JSON.parse(json.stdout) as Report;
      expect(report.deleteGuard).toMatchObject({
        limit: 5,
        links: STORIES,
        maxDeletes: "10%",
        planned: { tinypm: STORIES, target: 0 },
        over: ["tinypm"],
        allowed: false,
      });
      const md = await plan("--format", "markdown");
      expect(md.stdout).toContain("**Deletion guard: a real sync or migrate would stop here");
      const html = await plan("--format", "html");
      expect(html.stdout).toContain("data-delete-guard");
    });

    it(
      "sync writes nothing and exits 3 with mass_delete, naming count, side, limit and causes",
      STEP,
      async () => {
        const before = await writes(w);
        const run = await w.cli("sync", "--job", job, ...full);
        expect(run.code).toBe(3);
        expect(run.stderr).toContain("error [mass_delete]");
        expect(run.stderr).toContain(
          `${STORIES} of its ${STORIES} linked items are gone from ${system}`,
        );
        expect(run.stderr).toContain(`would delete their ${STORIES} counterparts on tinyPM`);
        expect(run.stderr).toContain("limit of 5 per run");
        expect(run.stderr).toMatch(/emptied or recreated.*wrong .*token lost access/s);
        expect(run.stderr).toContain("--allow-deletes");
        expect(run.stderr).toContain("maxDeletes");
        expect(await tinypmStories(w)).toHaveLength(STORIES);
        expect(await writes(w)).toEqual(before);
        // The state is untouched too: the next plan still finds every link.
        const again = JSON.parse((await plan("--format", "json")).stdout) as Report;
        expect(again.deleteGuard?.planned.tinypm).toBe(STORIES);
      },
    );

    it.runIf(job === "gh")(
      "a config pointed at another repository is no deletion: the run stops, not_found",
      STEP,
      async () => {
        const before = await writes(w);
        editConfig(w.config, (c) => {
          const github = c.targets.github;
          if (github?.type === "github") github.repo = "elsewhere";
        });
        try {
          const run = await w.cli("sync", "--job", job, "--allow-deletes");
          expect(run.code).toBe(3);
          expect(run.stderr).toContain("error [not_found]");
          expect(await tinypmStories(w)).toHaveLength(STORIES);
          expect(await writes(w)).toEqual(before);
        } finally {
          editConfig(w.config, (c) => {
            const github = c.targets.github;
            if (github?.type === "github") github.repo = w.servers.github.repo;
          });
        }
      },
    );

    it.runIf(job === "gh")(
      "serve shows the guarded run as failed, with the mass_delete message",
      STEP,
      async () => {
        // A state without the feed's checkpoint (a migration that could leave none: a person's
        // issue made meanwhile): serve's first sync reads the repository in full.
        const db = new Database(join(dirname(w.config), "state.db"));
        db.prepare("DELETE FROM checkpoints WHERE job = ? AND system = ?").run(job, "github");
        db.close();
        const served = await startServe(w.config, w.servers.env);
        try {
          const gh = await eventually(async () => {
            const { jobs } = await getJson<{
              jobs: {
                name: string;
                lastError: { error: string } | null;
                lastRun: { outcome: string } | null;
              }[];
            }>(`${served.url}/api/jobs`);
            const j = jobs.find((x) => x.name === job);
            return j?.lastError === null ? undefined : j;
          }, "the guarded startup run");
          expect(gh.lastError?.error).toContain("[mass_delete]");
          expect(gh.lastError?.error).toContain(
            `${STORIES} of its ${STORIES} linked items are gone`,
          );
          expect(gh.lastRun?.outcome).toBe("failed");
          const html = await (await fetch(`${served.url}/`)).text();
          expect(html).toContain("data-last-error");
          expect(html).toContain("[mass_delete]");
        } finally {
          served.proc.kill("SIGTERM");
          await served.proc.done;
        }
        expect(await tinypmStories(w)).toHaveLength(STORIES);
      },
    );

    it("--allow-deletes lets one run through", STEP, async () => {
      const run = await w.cli("sync", "--job", job, ...full, "--allow-deletes");
      expect(run.stderr).not.toContain("mass_delete");
      expect(run.code).toBe(0);
      expect(await tinypmStories(w)).toHaveLength(0);
    });
  },
);

describe.concurrent("an emptied tinyPM project, onDelete: close", WORLD, () => {
  let w: World;
  // Issues closed because their story was deleted (their close comment says so).
  const closed = async (): Promise<number> =>
    (await targetIssues(w, "gh")).filter(
      (i) =>
        i.status.startsWith("closed") &&
        i.comments.some((c) => c.body.includes("was deleted in tinyPM")),
    ).length;
  beforeAll(async () => {
    w = await startWorld("close");
    must(await w.cli("migrate", "--job", "gh"));
    must(await w.cli("sync", "--job", "gh"));
  });
  afterAll(async () => {
    await w.cleanup();
  });

  it(
    "a deletion below the limit still goes through (1 of 20: its issue is closed)",
    STEP,
    async () => {
      expect(await closed()).toBe(0);
      const [first] = await tinypmStories(w);
      if (first === undefined) throw new Error("no story");
      const tinypm = tinypmOf(w);
      await tinypm.delete({ kind: "story", id: first.id });
      await tinypm.close();
      const run = await w.cli("sync", "--job", "gh", "--full");
      expect(run.stderr).not.toContain("mass_delete");
      expect(run.code).toBe(0);
      expect(await closed()).toBe(1);
    },
  );

  it("closes no issue when every other story is gone: exit 3, mass_delete", STEP, async () => {
    const tinypm = tinypmOf(w);
    for (const s of await tinypmStories(w)) await tinypm.delete({ kind: "story", id: s.id });
    await tinypm.close();
    const before = await writes(w);
    const run = await w.cli("sync", "--job", "gh", "--full");
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("error [mass_delete]");
    expect(run.stderr).toContain(
      `${STORIES - 1} of its ${STORIES - 1} linked items are gone from tinyPM`,
    );
    expect(run.stderr).toContain(`would close their ${STORIES - 1} counterparts on GitHub`);
    expect(await writes(w)).toEqual(before);
    expect(await closed()).toBe(1);
  });

  it("migrate is guarded too: exit 3, mass_delete, no issue closed", STEP, async () => {
    const before = await writes(w);
    const run = await w.cli("migrate", "--job", "gh");
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("error [mass_delete]");
    expect(await writes(w)).toEqual(before);
    expect(await closed()).toBe(1);
  });

  it("a raised maxDeletes lets the run through", STEP, async () => {
    editConfig(w.config, (c) => {
      c.jobs = c.jobs.map((j) => ({ ...j, maxDeletes: STORIES }));
    });
    const run = await w.cli("sync", "--job", "gh", "--full");
    expect(run.code).toBe(0);
    expect(await closed()).toBe(STORIES);
  });
});
