import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { HEARTBEAT_MS } from "../../src/state/lease.js";
import { postgresSkipReason } from "../support/postgres-server.js";
import { writeConfig } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";
import { useServeWorld } from "./serve-world.js";
import { runCliProcess } from "./spawn.js";

interface WorkerAnswer {
  host: string;
  pid: number;
  startedAt: string;
  heartbeatAt: string;
  silentMs: number;
  alive: boolean;
  jobs: string[];
  self: boolean;
}
interface JobsAnswer {
  jobs: { name: string; running: boolean }[];
}

/**
 * A loopback proxy in front of the tinyPM reference server that parks every request while `hold`
 * is on: a run reading tinyPM through it stays running (and keeps its job's lease) until release.
 */
async function holdingProxy(target: string): Promise<{
  url: string;
  release(): void;
  close(): Promise<void>;
}> {
  const upstream = new URL(target);
  let parked: (() => void)[] | undefined = [];
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => {
      res.destroy();
    });
    req.pipe(out);
  };
  const server = createServer((req, res) => {
    if (parked === undefined) forward(req, res);
    else
      parked.push(() => {
        forward(req, res);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const release = (): void => {
    const waiting = parked ?? [];
    parked = undefined;
    for (const go of waiting) go();
  };
  return {
    url: `http://127.0.0.1:${String(port)}`,
    release,
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const world = useServeWorld("stories=3,tasks=1,comments=1", {
  postgres: true,
  stopSignal: "SIGKILL",
});
const { tmp, served } = world;

const workersOf = async (s: Served): Promise<WorkerAnswer[]> =>
  (await getJson<{ workers: WorkerAnswer[] }>(`${s.url}/api/workers`)).workers;

describe.skipIf(postgresSkipReason !== undefined)(
  `the workers of a PostgreSQL state${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("lists two serve workers with the jobs each holds in /api/workers, the dashboard and status; a killed one stops beating", async () => {
      const pg = world.pg();
      const s = world.servers();
      const url = await pg.createDatabase("serve_workers");
      const env = { ...s.env, STATE_URL: url };
      // Worker A runs job gh, worker B job jr, each reading tinyPM through a proxy that parks
      // the requests: both startup runs stay running, each holding its job's lease.
      const configs = await Promise.all(
        (["gh", "jr"] as const).map(async (job) => {
          const proxy = await holdingProxy(s.tinypm.url);
          world.closeLater(proxy);
          const file = writeConfig(tmp.dir, s, { tinypmUrl: proxy.url, file: `${job}.json` });
          editConfig(file, (c) => {
            c.jobs = c.jobs
              .filter((j) => j.name === job)
              .map((j) => ({ ...j, schedule: { every: "1h" } }));
            c.state = { urlEnv: "STATE_URL" };
          });
          return { file, proxy };
        }),
      );
      const [ga, jb] = configs;
      if (ga === undefined || jb === undefined) throw new Error("no configs");
      const a = await startServe(ga.file, env);
      served.push(a);
      const b = await startServe(jb.file, env);
      served.push(b);
      const pids = [a.proc.pid, b.proc.pid];

      const both = await eventually(async () => {
        const ws = await workersOf(a);
        const byPid = ws.map((w) => [w.pid, w.jobs.join(",")]);
        return byPid.length === 2 &&
          byPid.some(([p, j]) => p === a.proc.pid && j === "gh") &&
          byPid.some(([p, j]) => p === b.proc.pid && j === "jr")
          ? ws
          : undefined;
      }, "both workers listed holding their job");
      expect(both.every((w) => w.alive)).toBe(true);
      expect(both.map((w) => w.self)).toEqual(both.map((w) => w.pid === a.proc.pid));
      // The same list from the other worker; each one's jobs are the runs its /api/jobs shows.
      const fromB = await workersOf(b);
      expect(fromB.map((w) => [w.pid, w.jobs]).sort()).toEqual(
        both.map((w) => [w.pid, w.jobs]).sort(),
      );
      expect((await getJson<JobsAnswer>(`${a.url}/api/jobs`)).jobs).toEqual([
        expect.objectContaining({ name: "gh", running: true }),
      ]);
      expect((await getJson<JobsAnswer>(`${b.url}/api/jobs`)).jobs).toEqual([
        expect.objectContaining({ name: "jr", running: true }),
      ]);

      // The dashboard shows them, server-side (no script).
      const html = await (await fetch(a.url)).text();
      expect(html).toContain(`<h2 id="workers">Workers</h2>`);
      for (const pid of pids)
        expect(html).toMatch(new RegExp(`data-worker="[^"]+:${String(pid)}" data-alive="true"`));
      expect(html).toMatch(/<td>gh<\/td>/);
      expect(html).toMatch(/<td>jr<\/td>/);

      // `status --json` of either config lists both workers; the text has a Workers table.
      const status = await runCliProcess(["status", "--config", ga.file, "--json"], { env });
      expect({ code: status.code, stderr: status.stderr }).toMatchObject({ code: 0 });
      const statusJson = JSON.parse(status.stdout) as { jobs: unknown[]; workers: WorkerAnswer[] };
      expect(statusJson.jobs).toHaveLength(1);
      expect(statusJson.workers.map((w) => [w.pid, w.jobs, w.alive]).sort()).toEqual(
        [
          [a.proc.pid, ["gh"], true],
          [b.proc.pid, ["jr"], true],
        ].sort(),
      );
      const text = await runCliProcess(["status", "--config", jb.file], { env });
      expect({ code: text.code, stderr: text.stderr }).toMatchObject({ code: 0 });
      expect(text.stdout).toContain("Workers: 2 alive");
      expect(text.stdout).toMatch(new RegExp(`\\s${String(a.proc.pid)}\\s.*\\sgh\\s+alive`));
      expect(text.stdout).toMatch(new RegExp(`\\s${String(b.proc.pid)}\\s.*\\sjr\\s+alive`));

      // Runs done: both workers stay listed, idle, each still beating.
      ga.proxy.release();
      jb.proxy.release();
      const idle = await eventually(async () => {
        const ws = await workersOf(a);
        return ws.length === 2 && ws.every((w) => w.jobs.length === 0) ? ws : undefined;
      }, "both workers idle");
      expect(idle.map((w) => w.pid).sort()).toEqual([...pids].sort());
      expect(idle.every((w) => w.alive)).toBe(true);

      // B killed outright: its row stays, its heartbeat ages past a beat it should have sent.
      b.proc.kill("SIGKILL");
      await b.proc.done;
      const silent = await eventually(
        async () => {
          const w = (await workersOf(a)).find((x) => x.pid === b.proc.pid);
          return w !== undefined && w.silentMs > HEARTBEAT_MS + 2000 ? w : undefined;
        },
        "the killed worker's heartbeat to age",
        90_000,
      );
      expect(silent.jobs).toEqual([]);
      const later = (await workersOf(a)).find((x) => x.pid === b.proc.pid);
      expect(later?.silentMs ?? 0).toBeGreaterThanOrEqual(silent.silentMs);
      expect(later?.heartbeatAt).toBe(silent.heartbeatAt);
      // A keeps beating.
      const self = (await workersOf(a)).find((x) => x.self);
      expect(self?.silentMs ?? Infinity).toBeLessThan(HEARTBEAT_MS + 5000);
    }, 240_000);
  },
);

describe("the workers of an SQLite state", () => {
  it("serve lists itself in /api/workers; status lists nobody while no process holds the file", async () => {
    const servers = world.servers();
    const config = writeConfig(tmp.dir, servers, { file: "sqlite.json" });
    editConfig(config, (c) => {
      c.jobs = c.jobs
        .filter((j) => j.name === "gh")
        .map((j) => ({ ...j, schedule: { every: "1h" } }));
    });
    const a = await startServe(config, servers.env);
    served.push(a);
    const ws = await eventually(async () => {
      const jobs = (
        await getJson<{ jobs: { lastRun: unknown; running: boolean }[] }>(`${a.url}/api/jobs`)
      ).jobs;
      return jobs.every((j) => j.lastRun !== null && !j.running) ? workersOf(a) : undefined;
    }, "the startup run done");
    expect(ws).toEqual([
      expect.objectContaining({ pid: a.proc.pid, self: true, alive: true, jobs: [] }),
    ]);
    const status = await runCliProcess(["status", "--config", config, "--json"], {
      env: servers.env,
    });
    expect({ code: status.code, stderr: status.stderr }).toMatchObject({ code: 0 });
    expect((JSON.parse(status.stdout) as { workers: unknown[] }).workers).toEqual([]);
    const text = await runCliProcess(["status", "--config", config], { env: servers.env });
    expect(text.stdout).toContain("Workers: none");
    a.proc.kill("SIGTERM");
    await a.proc.done;
  }, 120_000);
});
