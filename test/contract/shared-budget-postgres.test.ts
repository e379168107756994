import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestGate } from "../../src/core/request-gate.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { createGate } from "../../src/gate/gate.js";
import { gateKey } from "../../src/gate/gate-registry.js";
import { openState } from "../../src/state/open-state.js";
import type { StateStore } from "../../src/state/store.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";

// One GitHub token's write budget kept in PostgreSQL: two workers, each with its own connection
// pool and its own request gate (as two processes have), hammer one sandbox token whose
// content-creation limit runs on a fast clock. Together they must never trip the limit.
let server: PostgresServer | undefined;
let n = 0;
beforeAll(async () => {
  if (postgresSkipReason === undefined) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** Sandbox minutes last 1 real second; the limit: 6 creations per (sandbox) minute. */
const SCALE = 60;
const PER_MINUTE = 6;

async function world(shared: boolean) {
  if (server === undefined) throw new Error("no PostgreSQL server");
  const url = await server.createDatabase(`budget_${(n += 1)}`);
  const sandbox = await startGithubSandbox({
    rateLimits: `creates=${PER_MINUTE}/min,creates=1000/h`,
    timeScale: SCALE,
  });
  const stores: StateStore[] = [];
  for (let i = 0; i < 2; i++) stores.push(await openState({ backend: "postgres", url }));
  const key = gateKey({ system: "github", baseUrl: sandbox.url, token: sandbox.token });
  const gates = stores.map((store) => {
    const budget = store.budget;
    if (budget === undefined) throw new Error("a writable PostgreSQL state has a budget");
    return createGate({
      system: "github",
      limits: {
        writesPerMinute: PER_MINUTE,
        writesPerHour: 1000,
        writeWindows: "completion",
        timeScale: SCALE,
        concurrency: 3,
      },
      shared: shared ? { budget, key } : undefined,
    }).forRun({ maxWaitMs: Infinity });
  });
  return { sandbox, stores, gates, url, key };
}

/** Creates `count` issues through `gate`, all at once; resolves to their HTTP statuses. */
function createIssues(sandbox: GithubSandbox, gate: RequestGate, who: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      gate.request({
        system: "github",
        kind: "write",
        name: `POST /repos/o/r/issues (${who} ${i})`,
        idempotent: false,
        send: async (signal) => {
          const res = await fetch(`${sandbox.url}/repos/${sandbox.owner}/${sandbox.repo}/issues`, {
            method: "POST",
            signal,
            headers: {
              authorization: `token ${sandbox.token}`,
              "content-type": "application/json",
              accept: "application/vnd.github+json",
            },
            body: JSON.stringify({ title: `${who} ${i}` }),
          });
          await res.arrayBuffer();
          return { status: res.status };
        },
      }),
    ),
  );
}

async function close(w: Awaited<ReturnType<typeof world>>): Promise<void> {
  await Promise.all(w.stores.map((s) => s.close()));
  await w.sandbox.close();
}

describe.skipIf(postgresSkipReason !== undefined)(
  `one token's write budget shared through PostgreSQL${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("keeps two workers together under the token's per-minute limit: no secondary limit hit", async () => {
      const w = await world(true);
      try {
        const started = Date.now();
        const [a, b] = await Promise.all([
          createIssues(w.sandbox, w.gates[0] as RequestGate, "a", 12),
          createIssues(w.sandbox, w.gates[1] as RequestGate, "b", 12),
        ]);
        const statuses = [...a, ...b].map((r) => r.status);
        expect(statuses).toEqual(Array.from({ length: 24 }, () => 201));
        const stats = w.sandbox.stats();
        expect(stats.rateLimited).toBe(0);
        expect(stats.byStatus["201"]).toBe(24);
        // 24 writes at 6 a (1 s) minute: at least 3 full windows went by.
        expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
        // The book in the database: the token's writes under its hashed key, never the token,
        // every one answered.
        const client = new pg.Client({ connectionString: w.url });
        await client.connect();
        try {
          await expect
            .poll(async () => {
              const { rows } = await client.query<{ key: string; total: number; open: number }>(
                `SELECT token_key AS key, count(*)::int AS total,
                        count(*) FILTER (WHERE end_ms IS NULL)::int AS open
                   FROM rate_slots GROUP BY token_key`,
              );
              return rows;
            })
            .toEqual([{ key: w.key, total: 24, open: 0 }]);
        } finally {
          await client.end();
        }
        expect(w.key).not.toContain(w.sandbox.token);
      } finally {
        await close(w);
      }
    }, 60_000);

    it("is what holds them: with no shared budget the same two workers trip the limit", async () => {
      const w = await world(false);
      try {
        await Promise.all([
          createIssues(w.sandbox, w.gates[0] as RequestGate, "a", 12),
          createIssues(w.sandbox, w.gates[1] as RequestGate, "b", 12),
        ]);
        expect(w.sandbox.stats().rateLimited).toBeGreaterThan(0);
      } finally {
        await close(w);
      }
    }, 60_000);

    it("books and compares on one clock, the test's: slots, retries and answers to the millisecond", async () => {
      if (server === undefined) throw new Error("no PostgreSQL server");
      const url = await server.createDatabase(`budget_${(n += 1)}`);
      // The budget's clock is the test's: the slots below do not depend on the machine's speed
      // or on the database's clock.
      const t0 = Date.parse("2026-01-01T00:00:00Z");
      let t = t0;
      const clock = (): number => t;
      const stores: StateStore[] = [];
      for (let i = 0; i < 2; i++) {
        stores.push(await openState({ backend: "postgres", url }, { budgetClock: clock }));
      }
      const [a, b] = stores.map((s) => {
        if (s.budget === undefined) throw new Error("a writable PostgreSQL state has a budget");
        return s.budget;
      });
      if (a === undefined || b === undefined) throw new Error("two budgets");
      const plan = {
        intervalMs: 0,
        windows: [{ count: 6, ms: 60_000 }],
        answerBoundMs: 15_000,
        pollMs: 100,
      };
      try {
        const first = await a.reserveBlock("k", "write", plan, 3);
        const second = await b.reserveBlock("k", "write", plan, 3);
        if (!first.granted || !second.granted) throw new Error("six slots are free");
        expect([...first.slots, ...second.slots].map((x) => x.at)).toEqual(Array(6).fill(t0));
        // The sixth write back is still in flight: ask again when its window has passed.
        t = t0 + 200;
        expect(await a.reserveBlock("k", "write", plan, 1)).toEqual({
          granted: false,
          retryAt: t0 + 60_000,
          now: t0 + 200,
        });
        // All answered at t0 + 500: the next slot is a window after the oldest answer.
        t = t0 + 500;
        await Promise.all([
          ...first.slots.map((x) => a.answered(x.id)),
          ...second.slots.map((x) => b.answered(x.id)),
        ]);
        t = t0 + 1_000;
        const next = await b.reserve("k", "write", plan);
        expect(next).toMatchObject({ granted: true, at: t0 + 60_500, now: t0 + 1_000 });
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });
  },
);
