import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTarget } from "../../src/adapters/registry.js";
import type { Tracker } from "../../src/core/tracker.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import {
  startGithubSandbox,
  type GithubSandbox,
  type GithubSandboxOptions,
} from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

export const MAPPINGS = fileURLToPath(new URL("../../mappings/", import.meta.url));

/** A temporary directory removed by `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "tinypm-sync-cli-"));
  return {
    dir,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

export interface Servers {
  readonly tinypm: ReferenceServer;
  readonly github: GithubSandbox;
  readonly jira: JiraSandbox;
  /** The env a child needs: every token, under the names the configs use. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The reference server with a small generated project, and both sandboxes with limits off
 * (`github` overrides the GitHub sandbox's options, e.g. small rate limits).
 */
export async function startServers(
  generate = "stories=3,tasks=1,comments=1",
  github: GithubSandboxOptions = {},
): Promise<Servers> {
  const [tinypm, githubSandbox, jira] = await Promise.all([
    startReferenceServer({ generate, seed: 3 }),
    startGithubSandbox({ rateLimits: "off", ...github }),
    startJiraSandbox({ rateLimits: "off" }),
  ]);
  return {
    tinypm,
    github: githubSandbox,
    jira,
    env: {
      TINYPM_TOKEN: tinypm.token,
      GITHUB_TOKEN: githubSandbox.token,
      JIRA_EMAIL: jira.email,
      JIRA_TOKEN: jira.token,
    },
    close: async () => {
      await Promise.allSettled([tinypm.close(), githubSandbox.close(), jira.close()]);
    },
  };
}

/** A config with one job per target (`gh` and `jr`) against the servers, written into `dir`. */
export function writeConfig(
  dir: string,
  s: Pick<Servers, "tinypm" | "github" | "jira">,
  overrides: {
    tinypmUrl?: string;
    githubUrl?: string;
    jiraUrl?: string;
    file?: string;
    /** Keep GitHub's published write limits (80/min) instead of lifting them. */
    paced?: boolean;
  } = {},
): string {
  const config = {
    tinypm: { baseUrl: overrides.tinypmUrl ?? s.tinypm.url, tokenEnv: "TINYPM_TOKEN" },
    targets: {
      github: {
        type: "github",
        baseUrl: overrides.githubUrl ?? s.github.url,
        owner: s.github.owner,
        repo: s.github.repo,
        tokenEnv: "GITHUB_TOKEN",
        ...(overrides.paced === true
          ? {}
          : { limits: { writesPerMinute: 100000, writesPerHour: 1000000 } }),
      },
      jira: {
        type: "jira",
        baseUrl: overrides.jiraUrl ?? s.jira.url,
        project: s.jira.projectKey,
        emailEnv: "JIRA_EMAIL",
        tokenEnv: "JIRA_TOKEN",
      },
    },
    jobs: [
      {
        name: "gh",
        tinypmProject: 1,
        target: "github",
        mapping: join(MAPPINGS, "github.yaml"),
        direction: "both",
        conflicts: "manual",
        onDelete: "close",
      },
      {
        name: "jr",
        tinypmProject: 1,
        target: "jira",
        mapping: join(MAPPINGS, "jira.yaml"),
        direction: "both",
        conflicts: "manual",
        onDelete: "close",
      },
    ],
    state: { path: join(dir, "state.db") },
  };
  const file = join(dir, overrides.file ?? "config.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** The trackers of a config's jobs as a person's own scripts would open them (job `gh` or `jr`). */
export function jobTarget(s: Pick<Servers, "github" | "jira">, job: "gh" | "jr"): Tracker {
  return createTarget(
    job === "gh"
      ? {
          type: "github",
          tokenEnv: "GITHUB_TOKEN",
          importApi: false,
          baseUrl: s.github.url,
          owner: s.github.owner,
          repo: s.github.repo,
          token: s.github.token,
        }
      : {
          type: "jira",
          emailEnv: "JIRA_EMAIL",
          tokenEnv: "JIRA_TOKEN",
          baseUrl: s.jira.url,
          project: s.jira.projectKey,
          email: s.jira.email,
          token: s.jira.token,
        },
  );
}

/**
 * A config whose only job, `gp`, keeps the GitHub issues on a Project (v2) board: `project` as
 * `targets.github.project`, and the board mapping (or `mapping`). Written in a new folder `dir`.
 */
export function writeBoardConfig(
  dir: string,
  s: Pick<Servers, "tinypm" | "github" | "jira">,
  project: Record<string, unknown>,
  mapping = join(MAPPINGS, "github-project.yaml"),
): string {
  mkdirSync(dir, { recursive: true });
  const file = writeConfig(dir, s);
  const cfg = JSON.parse(readFileSync(file, "utf8")) as {
    targets: { github: Record<string, unknown> };
    jobs: Record<string, unknown>[];
  };
  cfg.targets.github.project = project;
  cfg.jobs = [{ ...cfg.jobs[0], name: "gp", mapping }];
  writeFileSync(file, JSON.stringify(cfg, null, 2));
  return file;
}
