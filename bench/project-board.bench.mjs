// A migration onto a GitHub Project (v2) board (issue #33), as a user runs it: the built CLI's
// `migrate` with `targets.github.project` and mappings/github-project.yaml, then one quiet `sync`,
// against the reference server and the GitHub sandbox as their own processes, every limit lifted
// (sandbox `--rate-limits off`; its GraphQL budget still counts points).
// - BOARD_STORIES stories (default 1000), no tasks or comments: each story an issue on the board.
// Figures: GraphQL requests and points per item for the migration and for the quiet sync; the
// migration's REST writes; its wall time here; and the wall time at GitHub's limits, computed
// from those counts: REST content writes at 80 a minute and 500 an hour (sliding window, as
// src/report/estimate.ts schedules them), GraphQL at 5,000 points an hour and at the secondary
// 2,000 points a minute with a request with mutations counting 5. Whether GitHub counts a
// project's value writes as content creation is not documented; they are counted apart here.
// Usage: BOARD_STORIES=1000 npm run bench -- project-board
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { writeSchedule } from "../dist/report/estimate.js";

const STORIES = Number(process.env.BOARD_STORIES ?? 1000);
const CLI = new URL("../dist/cli/main.js", import.meta.url).pathname;
const MAPPING = new URL("../mappings/github-project.yaml", import.meta.url).pathname;
const LIFTED = { concurrency: 8, writesPerMinute: 1e9, writesPerHour: 1e9, readsPerSecond: 1e9 };

function startServer(args, lines) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "ignore"] });
  const out = [];
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on("line", (line) => {
      out.push(line);
      if (out.length === lines) resolve({ child, lines: out });
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}
const value = (lines, key) =>
  lines.find((l) => l.startsWith(`${key}: `))?.slice(key.length + 2) ?? "";
const urlOf = (lines) => lines[0].split(" listening on ")[1];
const round = (x, d = 3) => Number(x.toFixed(d));

function runCli(args, env) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("exit", (code) =>
      resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }),
    );
  });
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-board-"));
  const tinypm = await startServer(
    ["reference-server", "--generate", `stories=${STORIES},tasks=0,comments=0`],
    2,
  );
  const github = await startServer(["sandbox", "github", "--rate-limits", "off"], 4);
  const url = urlOf(github.lines);
  const token = value(github.lines, "token");
  const [owner, repo] = value(github.lines, "repository").split("/");
  const stats = async () => (await fetch(`${url}/_sandbox/stats`)).json();
  const points = async () => {
    const r = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ rateLimit { used } }" }),
    });
    return (await r.json()).data.rateLimit.used - 1; // this query's own point
  };
  try {
    const config = {
      tinypm: { baseUrl: urlOf(tinypm.lines), tokenEnv: "TINYPM_TOKEN", limits: LIFTED },
      targets: {
        github: {
          type: "github",
          baseUrl: url,
          owner,
          repo,
          tokenEnv: "GITHUB_TOKEN",
          limits: LIFTED,
          project: { owner, title: "Bench board" },
        },
      },
      jobs: [
        { name: "board", tinypmProject: 1, target: "github", mapping: MAPPING, direction: "both" },
      ],
      state: { path: join(dir, "state.db") },
    };
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify(config));
    const env = { TINYPM_TOKEN: value(tinypm.lines, "token"), GITHUB_TOKEN: token };
    const measure = async (command) => {
      const s0 = await stats();
      const p0 = await points();
      const r = await runCli(
        [command, "--config", file, "--job", "board", "--json", "--log-level", "warn"],
        env,
      );
      if (r.code !== 0) throw new Error(`${command} exited ${r.code}: ${r.stderr.slice(-2000)}`);
      const s1 = await stats();
      const p1 = await points();
      const graphql = (s1.byRoute["POST /graphql"] ?? 0) - (s0.byRoute["POST /graphql"] ?? 0);
      // Writes are REST writes and GraphQL requests with mutations.
      const restWrites = Object.entries(s1.byRoute)
        .filter(([route]) => !route.startsWith("GET ") && route !== "POST /graphql")
        .reduce((n, [route, c]) => n + c - (s0.byRoute[route] ?? 0), 0);
      const writes = s1.writes - s0.writes;
      return {
        seconds: r.seconds,
        graphql,
        mutations: writes - restWrites,
        points: p1 - p0,
        restWrites,
        summary: JSON.parse(r.stdout.trim().split("\n").at(-1)).summary,
      };
    };
    const migrate = await measure("migrate");
    if (migrate.summary.created !== STORIES)
      throw new Error(`migrate created ${migrate.summary.created} of ${STORIES} stories`);
    const quiet = await measure("sync");
    // At GitHub's limits: REST content writes on their own windows; GraphQL on its budget.
    const rest = writeSchedule(migrate.restWrites, { writesPerMinute: 80, writesPerHour: 500 });
    const queries = migrate.graphql - migrate.mutations;
    const secondaryMin = (migrate.mutations * 5 + queries) / 2000;
    const primaryHours = migrate.points / 5000;
    const graphqlMin = Math.max(
      secondaryMin,
      primaryHours >= 1 ? Math.floor(primaryHours) * 60 : 0,
    );
    return {
      figures: {
        [`${STORIES} stories: migrate wall time here, limits off (s)`]: round(migrate.seconds, 1),
        "migrate: GraphQL requests (of which with mutations)": `${migrate.graphql} (${migrate.mutations})`,
        "migrate: GraphQL requests per item": round(migrate.graphql / STORIES),
        "migrate: GraphQL points (primary budget)": migrate.points,
        "migrate: GraphQL points per item": round(migrate.points / STORIES),
        "migrate: REST writes": migrate.restWrites,
        "migrate at GitHub's limits: REST content writes (min)": round(rest.lastMs / 60_000, 1),
        "migrate at GitHub's limits: GraphQL alone (min)": round(graphqlMin, 1),
        "quiet sync: GraphQL requests": quiet.graphql,
        "quiet sync: GraphQL points": quiet.points,
        "quiet sync: writes": quiet.restWrites + quiet.mutations,
        "quiet sync: wall time (s)": round(quiet.seconds, 1),
      },
      targets: {
        "quiet sync GraphQL requests": `≤ ⌈items/100⌉ + 3 = ${Math.ceil(STORIES / 100) + 3}`,
      },
    };
  } finally {
    tinypm.child.kill("SIGTERM");
    github.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}
