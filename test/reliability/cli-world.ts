import http from "node:http";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const MAPPING = {
  github: join(ROOT, "mappings/github.yaml"),
  jira: join(ROOT, "mappings/jira.yaml"),
} as const;

/** Recognisable secrets: any occurrence of them in an output is a leak. */
export const SECRETS = {
  tinypm: "tok-SECRET-tinypm-1234567890",
  github: "ghp_SECRETgithubToken1234567890abcdefgh",
  jira: "tok-SECRET-jira-0987654321",
} as const;

/**
 * What a hostile tinyPM proxy answers for a route (a RegExp on the path): a body of its own, or
 * the server's answer rewritten (`rewrite`, e.g. one story's XML broken).
 */
export type Hostile =
  | { readonly route: RegExp; readonly body: string | Buffer; readonly status?: number }
  | { readonly route: RegExp; readonly rewrite: (body: string) => string };

/** A forwarding proxy in front of a server that answers chosen routes itself. */
export interface HostileProxy {
  readonly url: string;
  set(h: Hostile | undefined): void;
  close(): Promise<void>;
}

/** A forwarding proxy in front of any server of the world (tinyPM, a GitHub or Jira sandbox). */
export async function startHostileProxy(upstream: { readonly url: string }): Promise<HostileProxy> {
  const up = new URL(upstream.url);
  let hostile: Hostile | undefined;
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const path = req.url ?? "/";
    const rewrite = hostile !== undefined && "rewrite" in hostile ? hostile : undefined;
    if (hostile !== undefined && !("rewrite" in hostile) && hostile.route.test(path)) {
      req.resume();
      res.writeHead(hostile.status ?? 200, { "content-type": "application/xml" });
      res.end(hostile.body);
      return;
    }
    const fwd = http.request(
      { host: up.hostname, port: up.port, method: req.method, path, headers: req.headers, agent },
      (answer) => {
        if (rewrite?.route.test(path) !== true) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          const body = Buffer.from(rewrite.rewrite(Buffer.concat(chunks).toString("utf8")));
          const headers = { ...answer.headers, "content-length": String(body.length) };
          delete headers["transfer-encoding"];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    fwd.on("error", () => {
      res.destroy();
    });
    req.pipe(fwd);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${up.pathname}`,
    set: (h) => {
      hostile = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** The three servers, a hostile proxy, and a working directory with a config. */
export interface CliWorld {
  readonly tinypm: ReferenceServer;
  readonly github: GithubSandbox;
  readonly jira: JiraSandbox;
  readonly proxy: HostileProxy;
  readonly dir: string;
  readonly statePath: string;
  readonly env: Record<string, string>;
  /** Writes a config (the default one, changed by `edit`) and returns its path. */
  config(edit?: (c: Record<string, unknown>) => void, name?: string): string;
  writes(): { tinypm: number; github: number; jira: number };
  stateBytes(): Buffer | undefined;
  close(): Promise<void>;
}

export async function startCliWorld(o: { generate?: string; viaProxy?: boolean } = {}) {
  const tinypm = await startReferenceServer({
    generate: o.generate ?? "stories=3,tasks=2,comments=1",
    token: SECRETS.tinypm,
  });
  const github = await startGithubSandbox({ token: SECRETS.github });
  const jira = await startJiraSandbox({ token: SECRETS.jira });
  const proxy = await startHostileProxy(tinypm);
  const dir = mkdtempSync(join(tmpdir(), "tps-cli-"));
  const statePath = join(dir, "state.db");
  const base = (): Record<string, unknown> => ({
    tinypm: { baseUrl: o.viaProxy === false ? tinypm.url : proxy.url, tokenEnv: "TINYPM_TOKEN" },
    targets: {
      github: {
        type: "github",
        baseUrl: github.url,
        owner: github.owner,
        repo: github.repo,
        tokenEnv: "GITHUB_TOKEN",
        limits: { concurrency: 4, writesPerMinute: 100000, writesPerHour: 1000000 },
      },
      jira: {
        type: "jira",
        baseUrl: jira.url,
        project: jira.projectKey,
        emailEnv: "JIRA_EMAIL",
        tokenEnv: "JIRA_TOKEN",
      },
    },
    jobs: [
      { name: "gh", tinypmProject: 1, target: "github", mapping: MAPPING.github },
      { name: "jr", tinypmProject: 1, target: "jira", mapping: MAPPING.jira },
    ],
    state: { path: statePath },
  });
  const world: CliWorld = {
    tinypm,
    github,
    jira,
    proxy,
    dir,
    statePath,
    env: {
      TINYPM_TOKEN: SECRETS.tinypm,
      GITHUB_TOKEN: SECRETS.github,
      JIRA_EMAIL: jira.email,
      JIRA_TOKEN: SECRETS.jira,
    },
    config(edit, name = "config.json") {
      const c = base();
      edit?.(c);
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(c, null, 2));
      return path;
    },
    writes: () => ({
      tinypm: tinypm.stats().writes,
      github: github.stats().writes,
      jira: jira.stats().writes,
    }),
    stateBytes: () => (existsSync(statePath) ? readFileSync(statePath) : undefined),
    async close() {
      await proxy.close();
      await tinypm.close();
      await github.close();
      await jira.close();
    },
  };
  return world;
}
