// A throwaway PostgreSQL server for bench/postgres.bench.mjs: `initdb` into a temporary folder and
// `pg_ctl start` on a free loopback port (the approach of test/support/postgres-server.ts, which
// the benches cannot import: they run plain JavaScript against dist/). Unlike the tests' server it
// keeps PostgreSQL's durable defaults (fsync on), as SQLite's state runs with synchronous=FULL:
// the comparison is between two states that both survive a power cut.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

function binDir() {
  const fromConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  let versions = [];
  try {
    versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  } catch {
    // not installed there
  }
  return [
    fromConfig.status === 0 ? fromConfig.stdout.trim() : "",
    ...versions.map((v) => join("/usr/lib/postgresql", v, "bin")),
  ].find((dir) => dir !== "" && existsSync(join(dir, "initdb")));
}

// PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user.
const runAs = userInfo().uid === 0 ? "postgres" : undefined;

function run(command, args) {
  const [cmd, full] =
    runAs === undefined ? [command, args] : ["runuser", ["-u", runAs, "--", command, ...args]];
  const r = spawnSync(cmd, full, { encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${r.status}): ${r.stderr}${r.stdout}`);
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a server; `stop()` removes it (also on process exit). */
export async function startPostgres() {
  const bin = binDir();
  if (bin === undefined)
    throw new Error("PostgreSQL binaries (initdb, pg_ctl) not found: install `postgresql`");
  const folder = mkdtempSync(join(tmpdir(), "tinypm-bench-pg-"));
  const password = randomBytes(12).toString("hex");
  const user = "tinypm";
  writeFileSync(join(folder, "pwfile"), password);
  if (runAs !== undefined) {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${runAs}:`));
    const [, , uid, gid] = line?.split(":") ?? [];
    if (uid === undefined) throw new Error(`running as root needs the "${runAs}" user`);
    chownSync(folder, Number(uid), Number(gid));
    chownSync(join(folder, "pwfile"), Number(uid), Number(gid));
  }
  const data = join(folder, "data");
  const pgCtl = join(bin, "pg_ctl");
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // never started
    }
    rmSync(folder, { recursive: true, force: true });
  };
  process.once("exit", stop);
  // Stopped by a signal (Ctrl-C on a long run): no exit hook runs then, so stop the server here.
  for (const signal of ["SIGINT", "SIGTERM"])
    process.once(signal, () => {
      stop();
      process.exit(130);
    });
  run(join(bin, "initdb"), [
    ...["-D", data, "-U", user, "--pwfile", join(folder, "pwfile"), "-E", "UTF8"],
    ...["--no-locale", "--auth-local=trust", "--auth-host=scram-sha-256"],
  ]);
  const port = await freePort();
  run(pgCtl, [
    ...["-D", data, "-l", join(folder, "server.log"), "-w", "-t", "60", "start"],
    "-o",
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${folder} -c max_connections=200`,
  ]);
  const url = (db) => `postgres://${user}:${password}@127.0.0.1:${port}/${db}`;
  return {
    url,
    /** The server's log (connections show there once `log_connections` is on). */
    logFile: join(folder, "server.log"),
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop: async () => {
      process.removeListener("exit", stop);
      stop();
    },
  };
}
