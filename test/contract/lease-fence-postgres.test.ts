import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import { StateError } from "../../src/core/errors.js";
import type { GateEvent } from "../../src/core/request-gate.js";
import { createWriteFence } from "../../src/core/write-fence.js";
import { loadMapping } from "../../src/mapping/load.js";
import { createGate, type RunGate } from "../../src/gate/gate.js";
import { createLanes } from "../../src/gate/lanes.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { openState } from "../../src/state/open-state.js";
import type { LeaseClock, LeaseTiming } from "../../src/state/postgres/pg-lease.js";
import { LIVENESS_APPLICATION } from "../../src/state/postgres/pg-session.js";
import type { JobLease, StateStore } from "../../src/state/store.js";
import { runEngine, type RunReport } from "../../src/sync/engine.js";
import { guardStateWrites } from "../../src/sync/lease-guard.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { link } from "./support/state-suite.js";

// A lease is vouched for only while its heartbeats reach the database, and a run that lost its
// lease sends not one more write: two stores on one real PostgreSQL, one of them cut off.
let server: PostgresServer | undefined;
let n = 0;
beforeAll(async () => {
  if (postgresSkipReason === undefined) server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function fresh(): Promise<string> {
  if (server === undefined) throw new Error("no PostgreSQL server");
  return server.createDatabase(`fence_${(n += 1)}`);
}

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const until = async (what: string, ok: () => boolean, ms = 60_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** `state` whose job leases the test sees as they are claimed. */
function watchLeases(state: StateStore, leases: JobLease[]): StateStore {
  return new Proxy(state, {
    get(target, name, receiver) {
      if (name !== "claimJob") return Reflect.get(target, name, receiver) as unknown;
      return async (job: string, opts?: { waitMs?: number }) => {
        const lease = await target.claimJob(job, opts);
        leases.push(lease);
        return lease;
      };
    },
  });
}

describe.skipIf(postgresSkipReason !== undefined)(
  `a lost lease stops writing${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("is given up before the lease can expire when heartbeats fail: the other worker claims only after, and every write after the loss is refused", async () => {
      const url = await fresh();
      const password = server?.password ?? "";
      // Worker A logs in as a role of its own, so that it alone can be cut off from the server.
      await sql(url, `CREATE ROLE worker_a LOGIN SUPERUSER PASSWORD '${password}'`);
      const urlA = url.replace(/\/\/[^:]+:/, "//worker_a:");
      // The lease clocks are the test's, one for both workers (the database's time and each
      // worker's own): time passes only when the test moves it, so neither the machine's speed
      // nor the hour decides the outcome. The heartbeats still run on real timers.
      const t0 = Date.parse("2026-01-01T00:00:00Z");
      let t = t0;
      const clock: LeaseClock = { db: () => new Date(t), local: () => t - t0 };
      const timing: LeaseTiming = { ttlMs: 30_000, heartbeatMs: 50, clock };
      const a = await openState({ backend: "postgres", url: urlA }, { lease: timing });
      const b = await openState({ backend: "postgres", url }, { lease: timing });
      try {
        const leaseA = await a.claimJob("w");
        const fence = createWriteFence();
        fence.hold(leaseA);
        const lost = new Promise<number>((resolve) => {
          leaseA.signal.addEventListener("abort", () => {
            resolve(t);
          });
        });
        let sent = 0;
        const gate = createGate({ system: "github", limits: { concurrency: 2 } }).forRun({ fence });
        const write = (): Promise<unknown> =>
          gate.request({
            system: "github",
            kind: "write",
            name: "POST /repos/o/r/issues",
            idempotent: false,
            send: () => {
              sent++;
              return Promise.resolve({ status: 201 });
            },
          });
        const state = guardStateWrites(a, () => {
          fence.check();
        });
        await write();
        await state.putLink(link("1", "7"));
        expect(sent).toBe(1);

        // A partition as the server sees it: A's liveness connection stays open (the server has
        // not noticed anything), but nothing else of A gets through.
        await sql(
          url,
          `ALTER ROLE worker_a NOLOGIN;
           SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE usename = 'worker_a' AND application_name <> '${LIVENESS_APPLICATION}'`,
        );
        try {
          // A still vouches for its lease: B is refused at once.
          const refused = await b.claimJob("w").catch((e: unknown) => e);
          expect((refused as StateError).code).toBe("state_locked");
          expect(leaseA.signal.aborted).toBe(false);
          // 24 s of the lease's 30 s pass with no heartbeat of A's confirmed: A stops vouching…
          t = t0 + 24_000;
          expect(await lost).toBe(t0 + 24_000);
          // …while the lease still runs on the database: B is still refused (the 6 s margin).
          const early = await b.claimJob("w").catch((e: unknown) => e);
          expect((early as StateError).code).toBe("state_locked");
          // The lease's life over, B takes the job: from a holder that had stopped 6 s before.
          t = t0 + 30_000;
          const leaseB = await b.claimJob("w");
          expect(leaseB.takenOver?.reason).toBe("expired");
          const reason = leaseA.signal.reason as StateError;
          expect(reason).toBeInstanceOf(StateError);
          expect(reason.code).toBe("state_unavailable");
          expect(reason.message).toBe(
            "The lease of job w was lost: the database confirmed no heartbeat for 24000 ms (the lease lives 30000 ms).",
          );

          // Not one write after the loss: neither to a target nor to the state.
          await expect(write()).rejects.toThrow(/The lease of job w was lost/);
          await expect(state.putLink(link("2", "8"))).rejects.toThrow(/lease of job w was lost/);
          await expect(state.transaction((tx) => tx.putLink(link("3", "9")))).rejects.toThrow(
            /lease of job w was lost/,
          );
          expect(sent).toBe(1);
          expect(() => {
            leaseA.assertHeld();
          }).toThrow(/was lost/);
          // B, which holds the job now, writes as usual.
          leaseB.assertHeld();
          await b.putLink(link("4", "10"));
          expect(await b.countLinks("w")).toBe(2);
          await leaseB.release();
        } finally {
          await sql(url, "ALTER ROLE worker_a LOGIN");
        }
      } finally {
        await a.close();
        await b.close();
      }
    }, 120_000);

    describe("a sync whose lease is lost mid-apply", () => {
      let tinypm: ReferenceServer | undefined;
      let github: GithubSandbox | undefined;
      beforeAll(async () => {
        tinypm = await startReferenceServer({ generate: "stories=16", seed: 3 });
        github = await startGithubSandbox({ seed: 3 });
      });
      afterAll(async () => {
        await tinypm?.close();
        await github?.close();
      });

      const runOn = (
        state: StateStore,
        o: { onEvent?: (e: GateEvent) => void; leaseWaitMs?: number } = {},
      ): Promise<RunReport> => {
        if (tinypm === undefined || github === undefined) throw new Error("no servers");
        const fence = createWriteFence();
        const gate = (system: "tinypm" | "github"): RunGate =>
          createGate({ system, limits: { concurrency: 2 } }).forRun({
            fence,
            onEvent: o.onEvent,
          });
        const gates = { tinypm: gate("tinypm"), github: gate("github") };
        const t = createTinypmTracker({
          baseUrl: tinypm.url,
          token: tinypm.token,
          projectId: 1,
          gate: gates.tinypm,
        });
        const g = createGithubTracker({
          baseUrl: github.url,
          token: github.token,
          owner: github.owner,
          repo: github.repo,
          timeScale: 1000,
          gate: gates.github,
        });
        return runEngine({
          mode: "sync",
          job: { name: "widgets", direction: "both", conflicts: "manual", onDelete: "close" },
          targetSystem: "github",
          tinypm: t,
          target: g,
          mappingSpec: loadMapping("mappings/github.yaml"),
          state,
          leaseWaitMs: o.leaseWaitMs,
          fence,
          lanes: createLanes({
            limits: { tinypm: { concurrency: 2 }, github: { concurrency: 2 } },
            gates: { tinypm: gates.tinypm, github: gates.github },
            signal: fence.signal,
          }),
        }).finally(() => Promise.all([t.close(), g.close()]));
      };

      it("sends no write after the loss, and the next run on another worker finishes it with no duplicate", async () => {
        if (github === undefined) throw new Error("no sandbox");
        const url = await fresh();
        const timing: LeaseTiming = { ttlMs: 3000, heartbeatMs: 300 };
        // Every create takes a while, so the apply outlives the lease once its heartbeats stop.
        github.setFaults("latency=400@POST /repos/**");
        const sandbox = github;
        const leases: JobLease[] = [];
        const a = await openState({ backend: "postgres", url }, { lease: timing });
        const blocker = new pg.Client({ connectionString: url });
        await blocker.connect();
        const writes: { sentAt: number; name: string }[] = [];
        let blocked = false;
        let lostAt = Infinity;
        let failure: unknown;
        try {
          const run = runOn(watchLeases(a, leases), {
            onEvent: (e) => {
              if (e.type !== "request" || e.kind !== "write") return;
              writes.push({ sentAt: Date.now() - e.durationMs, name: e.name });
              if (blocked) return;
              blocked = true;
              // The creates still to make take far longer than the lease is vouched for
              // (14 of them, two at a time, 2 s each, against 2.4 s): on a loaded machine the lock
              // below may take hundreds of ms to be granted, and at 400 ms a create the last
              // ones were sometimes all made before the lease was lost.
              sandbox.setFaults("latency=2000@POST /repos/**");
              // The heartbeat's row stays locked: A's renewals hang, its other state writes go on.
              void blocker
                .query("BEGIN")
                .then(() => blocker.query("SELECT id FROM workers FOR UPDATE"));
            },
          });
          await until("the lease", () => leases.length === 1);
          leases[0]?.signal.addEventListener("abort", () => {
            lostAt = Date.now();
          });
          failure = await run.then(
            () => undefined,
            (e: unknown) => e,
          );
        } finally {
          await blocker.query("ROLLBACK").catch(() => undefined);
          await blocker.end();
          github.setFaults("");
        }
        await a.close();
        expect(Number.isFinite(lostAt)).toBe(true);
        const creates = writes.filter((w) => w.name.startsWith("POST /repos/")).length;
        // The run stopped mid-apply: the lease was lost with creates still to make…
        expect(creates).toBeGreaterThan(0);
        expect(creates).toBeLessThan(16);
        // …and it sent nothing after the loss. A write's send time is known here only to the
        // millisecond and up to 1 ms late (the event's clock reading minus its whole-ms duration),
        // so a write sent in the very millisecond the lease was given up, before it, may read 1 ms
        // after: only a later one counts as sent after the loss.
        expect(writes.filter((w) => w.sentAt > lostAt + 1)).toEqual([]);
        expect(failure).toBeInstanceOf(StateError);
        expect((failure as StateError).code).toBe("state_unavailable");
        expect((failure as StateError).message).toMatch(/^The lease of job widgets was lost/);

        // The next worker resumes from what A left (intents included) and creates each story once.
        // Its lease is not under test: a worker's own (30 s), which a loaded machine's stall of
        // a few seconds cannot take from it in the middle of the run.
        const b = await openState({ backend: "postgres", url });
        try {
          const runs = await b.runs({ job: "widgets" });
          expect(runs.map((r) => r.outcome)).toEqual(["failed"]);
          const report = await runOn(b, { leaseWaitMs: 30_000 });
          expect(report.summary.failed).toBe(0);
          expect(await b.pendingIntents("widgets")).toEqual([]);
          expect((await b.countLinksByKind("widgets")).story).toBe(16);
        } finally {
          await b.close();
        }
        const res = await fetch(
          `${github.url}/repos/${github.owner}/${github.repo}/issues?state=all&per_page=100`,
          { headers: { authorization: `Bearer ${github.token}` } },
        );
        const issues = (await res.json()) as { title: string }[];
        expect(issues).toHaveLength(16);
        expect(new Set(issues.map((i) => i.title)).size).toBe(16);
      }, 180_000);
    });
  },
);
