import { execFile, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/**
 * A real PostgreSQL server for one test file: `initdb` into a temporary folder, `pg_ctl start` on
 * a free loopback port, password authentication over TCP. Stop it in `afterAll`; an exit hook
 * stops it when the test process exits without that, and a detached watchdog stops it and removes
 * the folder when the test process is killed outright (SIGKILL runs no hook).
 *
 * PostgreSQL refuses to run as root: as root (CI), every server command runs as the `postgres`
 * user through `runuser`, in a folder owned by that user.
 */
export interface PostgresServer {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** The superuser's password (kept out of URLs given to code under test via `state.urlEnv`). */
  readonly password: string;
  /** The folder holding the cluster, its socket and its log. */
  readonly folder: string;
  /** A connection URL to `database` with the password in it. */
  url(database: string): string;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server without removing it (a network partition); `start` brings it back. */
  pause(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

const FOLDER_PREFIX = "tinypm-pg-";
const watchdogScript = join(dirname(fileURLToPath(import.meta.url)), "postgres-watchdog.mjs");

/** The folder of `initdb` and `pg_ctl`, or undefined when PostgreSQL is not installed. */
export function postgresBinDir(): string | undefined {
  const fromConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const candidates = [
    fromConfig.status === 0 ? fromConfig.stdout.trim() : "",
    ...listVersions("/usr/lib/postgresql").map((v) => join("/usr/lib/postgresql", v, "bin")),
  ];
  return candidates.find((dir) => dir !== "" && existsSync(join(dir, "initdb")));
}

function listVersions(root: string): string[] {
  try {
    return readdirSync(root).sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

/** Why PostgreSQL tests are skipped here, or undefined when they can run. */
export const postgresSkipReason: string | undefined =
  postgresBinDir() === undefined
    ? "PostgreSQL binaries (initdb, pg_ctl) not found: install the `postgresql` package (.ci/run does)"
    : undefined;

/** The user the server runs as when we are root; undefined when it runs as ourselves. */
function serverUser(): string | undefined {
  return userInfo().uid === 0 ? "postgres" : undefined;
}

function asServerUser(command: string, args: string[]): [string, string[]] {
  const user = serverUser();
  return user === undefined ? [command, args] : ["runuser", ["-u", user, "--", command, ...args]];
}

function run(command: string, args: string[]): void {
  const [cmd, full] = asServerUser(command, args);
  const r = spawnSync(cmd, full, { encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${String(r.status ?? r.signal)}): ${r.stderr}${r.stdout}`,
    );
  }
}

/**
 * `run`, without blocking this process while the command runs. Stopping or starting the server
 * takes a while; frozen meanwhile, the code under test never saw its connections close (as it
 * would in a real outage) and could take a connection the server had ended for a live one.
 */
function runAwaited(command: string, args: string[]): Promise<void> {
  const [cmd, full] = asServerUser(command, args);
  return new Promise((resolve, reject) => {
    execFile(cmd, full, { encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) => {
      if (error === null) resolve();
      else
        reject(
          new Error(`${command} ${args.join(" ")} failed (${error.message}): ${stderr}${stdout}`),
        );
    });
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/** Removes folders of earlier test runs whose owner process is gone (the watchdog's backstop). */
function sweepLeftovers(pgCtl: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(FOLDER_PREFIX)) continue;
    const folder = join(tmpdir(), name);
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(folder, "owner.pid"), "utf8"));
    } catch {
      continue; // being created right now, or not ours
    }
    if (isAlive(owner)) continue;
    const [cmd, args] = asServerUser(pgCtl, [
      "-D",
      join(folder, "data"),
      "-m",
      "immediate",
      "stop",
    ]);
    spawnSync(cmd, args, { stdio: "ignore", timeout: 30_000 });
    rmSync(folder, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Starts a fresh PostgreSQL server. Throws (it never skips) when the binaries are missing: guard
 * the suite with `postgresSkipReason`.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error(postgresSkipReason);
  const pgCtl = join(bin, "pg_ctl");
  sweepLeftovers(pgCtl);
  const folder = mkdtempSync(join(tmpdir(), FOLDER_PREFIX));
  writeFileSync(join(folder, "owner.pid"), String(process.pid));
  const password = randomBytes(12).toString("hex");
  const user = "tinypm";
  writeFileSync(join(folder, "pwfile"), password);
  const runAs = serverUser();
  if (runAs !== undefined) {
    const { uid, gid } = postgresIds(runAs);
    chownSync(folder, uid, gid);
    chownSync(join(folder, "pwfile"), uid, gid);
  }
  const data = join(folder, "data");
  const watchdog = spawn(
    process.execPath,
    [watchdogScript, String(process.pid), folder, pgCtl, ...(runAs === undefined ? [] : [runAs])],
    { detached: true, stdio: "ignore" },
  );
  watchdog.unref();
  let stopped = false;
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    const [cmd, args] = asServerUser(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
    spawnSync(cmd, args, { stdio: "ignore", timeout: 30_000 });
    rmSync(folder, { recursive: true, force: true });
    if (watchdog.pid !== undefined && isAlive(watchdog.pid)) watchdog.kill("SIGKILL");
  };
  process.once("exit", stopNow);
  try {
    run(join(bin, "initdb"), [
      ...["-D", data, "-U", user, "--pwfile", join(folder, "pwfile"), "-E", "UTF8"],
      ...["--no-locale", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"],
    ]);
  } catch (error) {
    stopNow();
    throw error;
  }
  let port = 0;
  const startServer = async (): Promise<void> => {
    // A port found free may be taken by the time the server binds it: try a few.
    let lastError: unknown;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      port = port === 0 || attempt > 0 ? await freePort() : port;
      try {
        run(pgCtl, [
          ...["-D", data, "-l", join(folder, "server.log"), "-w", "-t", "60", "start"],
          "-o",
          `-c listen_addresses=127.0.0.1 -p ${port} -k ${folder} -c fsync=off -c max_connections=200`,
        ]);
        return;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  };
  try {
    await startServer();
  } catch (error) {
    stopNow();
    throw error;
  }
  const url = (database: string): string =>
    `postgres://${user}:${password}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  return {
    host: "127.0.0.1",
    get port() {
      return port;
    },
    user,
    password,
    folder,
    url,
    async createDatabase(name: string): Promise<string> {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async pause(): Promise<void> {
      await runAwaited(pgCtl, ["-D", data, "-m", "fast", "-w", "stop"]);
    },
    async start(): Promise<void> {
      // Restart on the same port so the URLs given out stay valid.
      await runAwaited(pgCtl, [
        ...["-D", data, "-l", join(folder, "server.log"), "-w", "-t", "60", "start"],
        "-o",
        `-c listen_addresses=127.0.0.1 -p ${port} -k ${folder} -c fsync=off -c max_connections=200`,
      ]);
    },
    async stop(): Promise<void> {
      process.removeListener("exit", stopNow);
      stopNow();
      return Promise.resolve();
    },
  };
}

function postgresIds(user: string): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${user}:`));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(
      `Running as root, PostgreSQL needs the "${user}" user (Debian's postgresql package creates it).`,
    );
  }
  return { uid: Number(uid), gid: Number(gid) };
}
