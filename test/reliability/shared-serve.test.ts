import { setTimeout as delay } from "node:timers/promises";
import { until as pollUntil } from "./until.js";
import { afterAll, describe, expect, it } from "vitest";
import { openState } from "../../src/state/open-state.js";
import type { StateStore } from "../../src/state/store.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { ensureBuilt, runCli } from "./cli.js";
import { overlappingRuns } from "./workers-checks.js";
import {
  createPerson,
  claimProblems,
  ownerKey,
  ownerProblems,
  reportProblems,
  systemOfJob,
  storyProblems,
  type Owners,
  type PairView,
} from "./shared-serve-checks.js";
import { startWorker, startWorkersWorld, type Worker, type WorkersWorld } from "./workers-world.js";

/**
 * Issue #19, two `serve` replicas: two jobs (tinyPM projects 1 and 2) share one GitHub repository
 * and two more (projects 3 and 4) one Jira project, on one PostgreSQL state, with webhooks
 * (each delivery to one random replica, some to both) and 3 s schedules. A person opens issues on
 * both shared targets while the jobs run, and retitles some; one replica is SIGKILLed mid-run and
 * started again. Every person's issue must become exactly one tinyPM story across the two
 * projects of its target, stay with the job that got it, show in the other job's plan once as
 * imported by that job, and no job may run on two processes at once.
 */
const PAIRS = [
  { system: "github", jobs: ["gh1", "gh2"], projects: [1, 2] },
  { system: "jira", jobs: ["jr1", "jr2"], projects: [3, 4] },
] as const;
const JOBS = PAIRS.flatMap((p) => p.jobs);
/** Issues a person opens on each shared target. */
const ISSUES = 6;
/** Stories of each tinyPM project at the start (each job's own, pushed to the shared target). */
const STORIES = 2;

let pg: PostgresServer | undefined;
let world: WorkersWorld | undefined;
let state: StateStore | undefined;
const workers: Worker[] = [];

afterAll(async () => {
  for (const w of workers) if (!w.exited) w.proc.kill("SIGKILL");
  await Promise.all(workers.map((w) => w.done));
  await state?.close();
  await world?.close();
  await pg?.stop();
});

/** Polls until `check` gives a value (generous deadline: the machine may be loaded). */
const until = <T>(what: string, check: () => Promise<T | undefined>, ms = 300_000): Promise<T> =>
  pollUntil(what, check, ms, 400);

describe.skipIf(postgresSkipReason !== undefined)(
  `two serve replicas, two pairs of jobs sharing one GitHub repository and one Jira project${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("imports every person's issue exactly once, keeps it with one job, runs no job twice at once, SIGKILL included", async () => {
      ensureBuilt();
      pg = await startPostgres();
      const url = await pg.createDatabase("shared_serve");
      const live = (): string[] =>
        workers.flatMap((w) => (w.exited || w.url === undefined ? [] : [w.url]));
      world = await startWorkersWorld({
        jobsPerTarget: 2,
        generate: `stories=${STORIES},tasks=0,comments=0`,
        live,
        sharedTargets: true,
        fanOut: 0.3,
      });
      const w = world;
      // A short lease: the killed replica's job is free again within 5 s, not 30 s.
      const env = { ...w.env, STATE_URL: url, TINYPM_SYNC_LEASE_TTL_MS: "5000" };
      const config = w.config({ urlEnv: "STATE_URL", waitForLockMs: 60_000 }, "shared.json", "3s");
      workers.push(startWorker(config, env), startWorker(config, env));
      state = await until("the state's schema", () =>
        openState({ backend: "postgres", url }, { readOnly: true }).catch(() => undefined),
      );
      const st = state;
      const storyLinks = async (job: string) => {
        const out: { tinypmId: string; targetId: string }[] = [];
        for await (const l of st.links(job, "story")) out.push(l);
        return out;
      };
      await until("the first run of every job", async () => {
        for (const job of JOBS) if ((await storyLinks(job)).length < STORIES) return undefined;
        return true;
      });

      // Which job links each person's issue, as first seen: it must never change.
      const firstOwner: Owners = new Map();
      const ownerChanges: string[] = [];
      const watchOwners = async (): Promise<Owners> => {
        const now: Owners = new Map();
        for (const job of JOBS)
          for (const l of await storyLinks(job)) {
            const key = ownerKey(systemOfJob(job), l.targetId);
            now.set(key, [...(now.get(key) ?? []), job]);
          }
        for (const [key, jobs] of now) {
          const first = firstOwner.get(key);
          if (first === undefined) firstOwner.set(key, jobs);
          else if (first.join() !== jobs.join())
            ownerChanges.push(`${key}: ${first.join()} → ${jobs.join()}`);
        }
        return now;
      };

      const person = createPerson(w);
      const kills: number[] = [];
      for (let i = 1; i <= ISSUES; i++) {
        await person.open("github", `Shared GitHub issue ${i}`);
        await person.open("jira", `Shared Jira issue ${i}`);
        if (i > 1 && Math.random() < 0.6) await person.retitle("github");
        if (i > 1 && Math.random() < 0.6) await person.retitle("jira");
        await watchOwners();
        if (i === ISSUES / 2) {
          // Mid-way: SIGKILL a replica while it runs a job (or after 20 s whatever it does).
          const victimAt = await until(
            "a replica running a job",
            async () => {
              const running = (await st.runs()).filter((r) => r.outcome === "running");
              const at = workers.findIndex(
                (x) => !x.exited && running.some((r) => r.pid === x.pid),
              );
              return at === -1 ? undefined : at;
            },
            20_000,
          ).catch(() => 0);
          const victim = workers[victimAt];
          if (victim === undefined) throw new Error("no replica to kill");
          victim.proc.kill("SIGKILL");
          kills.push(victim.pid);
          await victim.done;
          workers[victimAt] = startWorker(config, env);
          workers.push(victim);
        }
        await delay(300 + Math.random() * 600);
      }
      await person.retitle("github");
      await person.retitle("jira");

      // The replicas settle everything: every person's issue linked, every job planning nothing.
      // `--migrate` plans read the whole target: every item is in them.
      const plans = async (migrate = false): Promise<Map<string, string> | undefined> => {
        const out = new Map<string, string>();
        for (const job of JOBS) {
          const r = await runCli(
            [
              "plan",
              ...["--config", config, "--job", job, "--format", "json", "--detailed-exitcode"],
              ...(migrate ? ["--migrate"] : []),
            ],
            { env },
          );
          if (r.code !== 0) return undefined;
          out.set(job, r.stdout);
        }
        return out;
      };
      await until(
        "every job quiet with every person's issue linked",
        async () => {
          const owners = await watchOwners();
          const linked = person.issues.every((iss) =>
            [iss.id, iss.alt].some((id) => owners.has(ownerKey(iss.system, id ?? ""))),
          );
          return linked ? plans() : undefined;
        },
        400_000,
      );

      for (const x of workers) if (!x.exited) x.proc.kill("SIGTERM");
      await Promise.all(workers.map((x) => x.done));
      // Quiet afterwards, with no replica running: every plan exits 0.
      expect(await plans(), "a plan after the replicas stopped has something to do").toBeDefined();
      const finalPlans = await plans(true);
      expect(
        finalPlans,
        "a whole plan after the replicas stopped has something to do",
      ).toBeDefined();
      const owners = await watchOwners();

      const status = await runCli(["status", "--config", config, "--json"], { env });
      expect({ code: status.code, stderr: status.stderr }).toEqual({ code: 0, stderr: "" });
      const runs = await st.runs();
      const views: PairView[] = [];
      for (const pair of PAIRS) {
        const links = new Map<string, { tinypmId: string; targetId: string }[]>();
        for (const job of pair.jobs) links.set(job, await storyLinks(job));
        views.push({
          system: pair.system,
          jobs: pair.jobs,
          projects: pair.projects,
          links,
          issues: person.issues.filter((i) => i.system === pair.system),
          targetCount: await person.count(pair.system),
        });
      }
      const problems = {
        stories: views.flatMap((v) => storyProblems(w.tinypm, v, STORIES)),
        owners: [...ownerChanges, ...views.flatMap((v) => ownerProblems(v, owners))],
        reports: views.flatMap((v) => reportProblems(v, finalPlans ?? new Map())),
        claims: views.flatMap((v) => claimProblems(v, status.stdout)),
        overlappingRuns: overlappingRuns(runs),
        runsLeftRunning: runs.filter((r) => r.outcome === "running").map((r) => r.id),
      };
      expect(problems).toEqual({
        stories: [],
        owners: [],
        reports: [],
        claims: [],
        overlappingRuns: [],
        runsLeftRunning: [],
      });
      // Both replicas ran jobs (the killed one and its successor too), and webhooks of both
      // targets reached them, some deliveries both.
      expect(kills).toHaveLength(1);
      expect(new Set(runs.map((r) => r.workerId ?? r.pid)).size).toBeGreaterThanOrEqual(3);
      expect(runs.some((r) => kills.includes(r.pid))).toBe(true);
      expect(w.forwarder.delivered.get("/webhooks/github") ?? 0).toBeGreaterThan(0);
      expect(w.forwarder.delivered.get("/webhooks/jira") ?? 0).toBeGreaterThan(0);
      const fanned = [...w.forwarder.fannedOut.values()].reduce((a, b) => a + b, 0);
      expect(fanned).toBeGreaterThan(0);
      process.stdout.write(
        `shared-serve: ${person.issues.length} issues, ${person.retitles} retitles, ${runs.length} runs, ${fanned} deliveries to both replicas\n`,
      );
    }, 600_000);
  },
);
