import http from "node:http";
import type { AddressInfo } from "node:net";
import { createWriteStream, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import {
  generateDataset,
  parseGenerateSpec,
  startReferenceServer,
  type ReferenceServer,
} from "../../src/reference-server/index.js";
import type { Dataset } from "../../src/reference-server/model.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { MAPPING } from "./cli-world.js";
import { spawnCli } from "./cli.js";

/** Ids of project `p` are its generated ids plus `p * ID_STRIDE`. */
const ID_STRIDE = 1000;

/**
 * One tinyPM dataset holding `projects` copies of a generated project (ids 1…N, every story in
 * an open iteration or the backlog, so every run reads them).
 */
export function multiProjectDataset(projects: number, generate: string, seed: number): Dataset {
  const one = generateDataset(parseGenerateSpec(`${generate},closed=0`), seed, new Date());
  const base = one.projects.find((p) => p.id === 1);
  if (base === undefined) throw new Error("the generator made no project 1");
  const out: Dataset = {
    users: one.users,
    projects: [],
    iterations: [],
    stories: [],
    tasks: [],
    comments: [],
    activities: [],
  };
  const storyIds = new Set(one.stories.filter((s) => s.projectId === 1).map((s) => s.id));
  const taskIds = new Set(one.tasks.filter((t) => storyIds.has(t.storyId)).map((t) => t.id));
  for (let p = 1; p <= projects; p++) {
    const off = p * ID_STRIDE;
    out.projects.push({ ...base, id: p, code: `P${p}`, name: `Project ${p}` });
    for (const it of one.iterations.filter((i) => i.projectId === 1)) {
      out.iterations.push({ ...it, id: it.id + off, projectId: p });
    }
    for (const s of one.stories.filter((x) => storyIds.has(x.id))) {
      out.stories.push({
        ...s,
        id: s.id + off,
        projectId: p,
        name: `${s.name} (P${p})`,
        iterationId: s.iterationId === undefined ? undefined : s.iterationId + off,
      });
    }
    for (const t of one.tasks.filter((x) => taskIds.has(x.id))) {
      out.tasks.push({ ...t, id: t.id + off, storyId: t.storyId + off });
    }
    for (const c of one.comments) {
      if (c.storyId !== undefined && storyIds.has(c.storyId)) {
        out.comments.push({ ...c, storyId: c.storyId + off });
      } else if (c.taskId !== undefined && taskIds.has(c.taskId)) {
        out.comments.push({ ...c, taskId: c.taskId + off });
      }
    }
    for (const a of one.activities.filter((x) => taskIds.has(x.taskId))) {
      out.activities.push({ ...a, taskId: a.taskId + off });
    }
  }
  return out;
}

/**
 * A webhook forwarder (a load balancer): each delivery goes to one live worker, 502 when none
 * answers. With `fanOut`, that share of the deliveries (every third for 0.3…) goes to every live
 * worker (a balancer retrying on another replica, a sender delivering twice); the first worker's
 * answer is returned.
 */
export interface Forwarder {
  readonly url: string;
  /** Deliveries forwarded with a 2xx answer, per path. */
  readonly delivered: Map<string, number>;
  /** Deliveries sent to more than one worker, per path. */
  readonly fannedOut: Map<string, number>;
  close(): Promise<void>;
}

export async function startForwarder(
  live: () => readonly string[],
  opts: { fanOut?: number | undefined } = {},
): Promise<Forwarder> {
  const delivered = new Map<string, number>();
  const fannedOut = new Map<string, number>();
  const bump = (m: Map<string, number>, key: string): void => {
    m.set(key, (m.get(key) ?? 0) + 1);
  };
  let received = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const targets = live();
      const first = Math.floor(Math.random() * targets.length);
      const to = targets[first];
      if (to === undefined) {
        res.writeHead(502).end();
        return;
      }
      const headers = { ...req.headers };
      delete headers.host;
      const send = (url: string) =>
        fetch(`${url}${req.url ?? "/"}`, {
          method: req.method ?? "POST",
          headers: headers as Record<string, string>,
          body: Buffer.concat(chunks),
          signal: AbortSignal.timeout(8_000),
        });
      const others = targets.filter((_, i) => i !== first);
      // Every delivery that brings the share sent to all up to `fanOut` (not a coin: never none).
      received++;
      const share = opts.fanOut ?? 0;
      if (others.length > 0 && Math.floor(received * share) > Math.floor((received - 1) * share)) {
        bump(fannedOut, req.url ?? "");
        for (const other of others) send(other).catch(() => undefined);
      }
      send(to)
        .then(async (answer) => {
          const text = await answer.text();
          if (answer.ok) bump(delivered, req.url ?? "");
          res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
        })
        .catch(() => {
          res.writeHead(502).end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    delivered,
    fannedOut,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

export const GITHUB_TOKEN = `ghp_${"W".repeat(36)}`;
export const JIRA_TOKEN = "tok-workers-jira";
export const HOOK_SECRET = "workers-hook-secret-0123456789";

/** The servers of the test: tinyPM with one project per job, a sandbox per job's target. */
export interface WorkersWorld {
  readonly tinypm: ReferenceServer;
  readonly github: readonly GithubSandbox[];
  readonly jira: readonly JiraSandbox[];
  readonly forwarder: Forwarder;
  readonly dir: string;
  readonly env: Record<string, string>;
  /** Writes a config; `state` is its `state` section. */
  config(state: Record<string, unknown>, name: string, schedule: string): string;
  close(): Promise<void>;
}

/**
 * `jobs` GitHub jobs `gh1…` (tinyPM projects 1…, repositories `acme/repo1…`) and as many Jira
 * jobs `jr1…` (the next projects, Jira projects `JA…`), every sandbox with the vendor's real
 * rate limits and webhooks to the forwarder. `sharedTargets`: one GitHub sandbox and one Jira
 * sandbox that every job of the system syncs to (each job through its own target entry naming the
 * same repository or project), as teams sharing one repository do. `fanOut`: the forwarder's.
 */
export async function startWorkersWorld(o: {
  jobsPerTarget: number;
  generate: string;
  live: () => readonly string[];
  sharedTargets?: boolean;
  fanOut?: number;
}): Promise<WorkersWorld> {
  const n = o.jobsPerTarget;
  const forwarder = await startForwarder(o.live, { fanOut: o.fanOut });
  const tinypm = await startReferenceServer({ dataset: multiProjectDataset(2 * n, o.generate, 5) });
  const hook = (path: string) => ({
    url: `${forwarder.url}${path}`,
    secret: HOOK_SECRET,
    retryDelaysMs: [500, 1000, 2000, 4000, 8000],
  });
  const github: GithubSandbox[] = [];
  const jira: JiraSandbox[] = [];
  const sandboxes = o.sharedTargets === true ? 1 : n;
  for (let i = 1; i <= sandboxes; i++) {
    github.push(
      await startGithubSandbox({
        repo: `repo${i}`,
        token: GITHUB_TOKEN,
        rateLimits: "real",
        webhook: hook("/webhooks/github"),
      }),
    );
    jira.push(
      await startJiraSandbox({
        projectKey: `J${String.fromCharCode(64 + i)}`,
        token: JIRA_TOKEN,
        rateLimits: "real",
        webhook: hook("/webhooks/jira"),
      }),
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "tps-workers-"));
  const targets: Record<string, unknown> = {};
  const jobs: Record<string, unknown>[] = [];
  const sandboxOf = <T>(list: readonly T[], i: number): T => {
    const s = list[Math.min(i, list.length - 1)];
    if (s === undefined) throw new Error("no sandbox");
    return s;
  };
  for (let i = 0; i < n; i++) {
    const g = sandboxOf(github, i);
    targets[`github${i + 1}`] = {
      type: "github",
      baseUrl: g.url,
      owner: g.owner,
      repo: g.repo,
      tokenEnv: "GITHUB_TOKEN",
      webhookSecretEnv: "HOOK_SECRET",
    };
  }
  for (let i = 0; i < n; i++) {
    const j = sandboxOf(jira, i);
    targets[`jira${i + 1}`] = {
      type: "jira",
      baseUrl: j.url,
      project: j.projectKey,
      emailEnv: "JIRA_EMAIL",
      tokenEnv: "JIRA_TOKEN",
      webhookSecretEnv: "HOOK_SECRET",
    };
  }
  for (let i = 1; i <= n; i++) {
    jobs.push(job(`gh${i}`, i, `github${i}`, MAPPING.github));
  }
  for (let i = 1; i <= n; i++) {
    jobs.push(job(`jr${i}`, n + i, `jira${i}`, MAPPING.jira));
  }
  return {
    tinypm,
    github,
    jira,
    forwarder,
    dir,
    env: {
      TINYPM_TOKEN: tinypm.token,
      GITHUB_TOKEN,
      JIRA_EMAIL: jira[0]?.email ?? "",
      JIRA_TOKEN,
      HOOK_SECRET,
    },
    config(state, name, schedule) {
      const file = join(dir, name);
      const c = {
        tinypm: { baseUrl: tinypm.url, tokenEnv: "TINYPM_TOKEN" },
        targets,
        jobs: jobs.map((j) => ({ ...j, schedule: { every: schedule } })),
        state,
      };
      writeFileSync(file, JSON.stringify(c, null, 2));
      return file;
    },
    async close() {
      await forwarder.close();
      await Promise.allSettled([
        tinypm.close(),
        ...github.map((g) => g.close()),
        ...jira.map((j) => j.close()),
      ]);
    },
  };
}

function job(name: string, project: number, target: string, mapping: string) {
  return {
    name,
    tinypmProject: project,
    target,
    mapping,
    direction: "both",
    conflicts: "manual",
    onDelete: "close",
  };
}

/** A `serve` worker: its URL once listening, its process and its pid. */
export interface Worker {
  readonly proc: ChildProcess;
  readonly pid: number;
  url: string | undefined;
  exited: boolean;
  readonly stderr: () => string;
  readonly done: Promise<void>;
}

/**
 * Starts a `serve` worker. `logDir`: its whole output goes to `worker-<pid>.log` there, with every
 * item's event (log level debug, JSON lines), for a failure's trace (workers-history.ts).
 */
export function startWorker(config: string, env: Record<string, string>, logDir?: string): Worker {
  const args = ["serve", "--config", config, "--port", "0", "--debounce", "200"];
  const proc = spawnCli(
    logDir === undefined ? args : [...args, "--log-level", "debug", "--log-format", "json"],
    { env },
  );
  const log =
    logDir === undefined || proc.pid === undefined
      ? undefined
      : createWriteStream(join(logDir, `worker-${proc.pid}.log`), { flags: "a" });
  let stdout = "";
  let stderr = "";
  const w: Worker = {
    proc,
    pid: proc.pid ?? -1,
    url: undefined,
    exited: false,
    stderr: () => stderr,
    done: new Promise<void>((resolve) => {
      proc.on("close", () => {
        w.exited = true;
        if (log === undefined) resolve();
        else log.end(resolve);
      });
    }),
  };
  proc.stdout?.setEncoding("utf8").on("data", (d: string) => {
    log?.write(d);
    stdout += d;
    const m = /^tinypm-sync listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
    if (m?.[1] !== undefined) w.url = m[1];
  });
  proc.stderr?.setEncoding("utf8").on("data", (d: string) => {
    log?.write(d);
    stderr = (stderr + d).slice(-20_000);
  });
  return w;
}
