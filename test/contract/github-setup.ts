import {
  createGithubTracker,
  type GithubTrackerOptions,
  type GithubTracker,
} from "../../src/adapters/github/index.js";
import type { ChangePage, Checkpoint } from "../../src/core/tracker.js";
import {
  startGithubSandbox,
  type GithubSandbox,
  type GithubSandboxOptions,
} from "../../src/sandboxes/github/index.js";

/** A sandbox, a tracker on it, and a transport switch that garbles the next response body. */
export interface GithubHarness {
  readonly sandbox: GithubSandbox;
  readonly tracker: GithubTracker;
  /** A second tracker on the same sandbox (e.g. a rerun after an interruption). */
  tracker2(extra?: Partial<GithubTrackerOptions>): GithubTracker;
  /**
   * The next response body is spoiled: `cut` (JSON cut off in transit: a transient failure) or
   * `shape` (valid JSON of the wrong shape: an invalid payload).
   */
  garbleNext(kind?: "cut" | "shape"): void;
  close(): Promise<void>;
}

export async function startGithubHarness(
  sandboxOptions: GithubSandboxOptions = {},
  trackerOptions: Partial<GithubTrackerOptions> = {},
): Promise<GithubHarness> {
  const sandbox = await startGithubSandbox(sandboxOptions);
  let garble: "cut" | "shape" | undefined;
  const transport: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (garble === undefined) return res;
    const body = garble === "cut" ? '{"id": 1, "numb' : '{"unexpected": true}';
    garble = undefined;
    await res.arrayBuffer();
    return new Response(body, {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
    });
  };
  const make = (extra: Partial<GithubTrackerOptions> = {}): GithubTracker =>
    createGithubTracker({
      baseUrl: sandbox.url,
      token: sandbox.token,
      owner: sandbox.owner,
      repo: sandbox.repo,
      tokenEnv: "GITHUB_TOKEN",
      fetch: transport,
      ...trackerOptions,
      ...extra,
    });
  const tracker = make();
  return {
    sandbox,
    tracker,
    tracker2: make,
    garbleNext: (kind = "cut") => {
      garble = kind;
    },
    close: async () => {
      await tracker.close();
      await sandbox.close();
    },
  };
}

/** Every page of the tracker's change feed from `cp`, and the checkpoint of the last one. */
export async function readFeed(
  tracker: GithubTracker,
  cp: Checkpoint | undefined,
): Promise<{ pages: ChangePage[]; checkpoint: Checkpoint | undefined }> {
  const pages: ChangePage[] = [];
  for await (const page of tracker.changes(cp)) pages.push(page);
  return { pages, checkpoint: pages.at(-1)?.checkpoint };
}

/** A person's write to the sandbox's repository, past the tracker: 201 or 200, else it throws. */
export async function personSends(
  sandbox: GithubSandbox,
  method: "POST" | "PATCH",
  path: string,
  body: unknown,
): Promise<void> {
  const res = await fetch(`${sandbox.url}/repos/${sandbox.owner}/${sandbox.repo}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== (method === "POST" ? 201 : 200))
    throw new Error(`${method} ${path}: ${String(res.status)} ${await res.text()}`);
}
