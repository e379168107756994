// The shared rate budget of a PostgreSQL state (issue #19): database round trips per write.
// BENCH_BUDGET_WRITES (default 200) writes of one GitHub token go through the real request gate
// (dist/gate/gate.js, the one the trackers use) with GitHub's write limits (80 per minute, 500
// per hour) on a fast clock (BENCH_BUDGET_SCALE, default 60: a minute lasts 1 s), each booked in
// the budget kept by a real PostgreSQL server (bench/postgres-server.mjs). The "service" answers
// each write after 20 ms. Every worker is its own connection pool, budget and gate, as a process
// is; with 2 workers each sends the writes (two jobs on one token). Two shapes of work:
// - one after another: a write is sent when the one before was answered (a lane of 1);
// - all waiting: every write is handed to the gate at once (gate concurrency 8).
// Counted: the statements the budget's pools sent (each a round trip; wrapped Client.query),
// per write, and the run's wall time. Only `pgBudget(pool, unavailable)` and the gate are used,
// so the same file measures an older build too.
// Usage: npm run bench -- shared-budget
import pg from "pg";
import { createGate } from "../dist/gate/gate.js";
import { pgBudget } from "../dist/state/postgres/pg-budget.js";
import { openPostgresState } from "../dist/state/postgres/pg-store.js";
import { startPostgres } from "./postgres-server.mjs";

const WRITES = Number(process.env.BENCH_BUDGET_WRITES ?? 200);
const SCALE = Number(process.env.BENCH_BUDGET_SCALE ?? 60);
const KEY = "github http://127.0.0.1 bench0000000000";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pool whose clients count every statement they send. */
function countedPool(url, counter) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("connect", (client) => {
    const query = client.query;
    client.query = function counted(...args) {
      counter.n++;
      return query.apply(this, args);
    };
  });
  return pool;
}

async function once(url, workers, shape) {
  const counter = { n: 0 };
  const pools = [];
  const gates = [];
  for (let i = 0; i < workers; i++) {
    const pool = countedPool(url, counter);
    pools.push({ pool, budget: pgBudget(pool, (e) => e) });
    gates.push(
      createGate({
        system: "github",
        limits: {
          writesPerMinute: 80,
          writesPerHour: 500,
          writeWindows: "completion",
          timeScale: SCALE,
          concurrency: 8,
        },
        shared: { budget: pools[i].budget, key: KEY },
      }).forRun({ maxWaitMs: Infinity }),
    );
  }
  const write = (gate, i) =>
    gate.request({
      system: "github",
      kind: "write",
      name: `POST /issues ${i}`,
      idempotent: false,
      send: async () => {
        await sleep(20);
        return { status: 201 };
      },
    });
  const started = performance.now();
  await Promise.all(
    gates.map(async (gate) => {
      if (shape === "all waiting") {
        await Promise.all(Array.from({ length: WRITES }, (_, i) => write(gate, i)));
      } else {
        for (let i = 0; i < WRITES; i++) await write(gate, i);
      }
    }),
  );
  const ms = performance.now() - started;
  for (const { pool, budget } of pools) {
    // Answers still batched (newer builds) are written before the count is read.
    await budget.drain?.();
    await sleep(150);
    await pool.end();
  }
  const total = WRITES * workers;
  return {
    perWrite: Number((counter.n / total).toFixed(2)),
    seconds: Number((ms / 1000).toFixed(1)),
  };
}

export async function run() {
  const server = await startPostgres();
  const figures = {};
  try {
    let db = 0;
    for (const shape of ["one after another", "all waiting"]) {
      for (const workers of [1, 2]) {
        const url = await server.createDatabase(`budget_bench_${(db += 1)}`);
        const state = await openPostgresState({ url });
        await state.close();
        const r = await once(url, workers, shape);
        const label = `${WRITES} writes × ${workers} worker${workers === 1 ? "" : "s"}, ${shape}`;
        figures[`${label}: budget round trips per write`] = r.perWrite;
        figures[`${label}: seconds`] = r.seconds;
      }
    }
  } finally {
    await server.stop();
  }
  return { figures };
}
