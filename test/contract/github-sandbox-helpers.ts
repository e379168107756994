import { Octokit } from "@octokit/rest";
import {
  startGithubSandbox,
  type GithubSandbox,
  type GithubSandboxOptions,
} from "../../src/sandboxes/github/index.js";

/** Test helpers for the GitHub sandbox: a started sandbox, an Octokit and a raw fetch. */
export interface Harness {
  readonly sandbox: GithubSandbox;
  readonly octokit: Octokit;
  /** `fetch` against the sandbox with the admin token (override headers as needed). */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; headers?: Record<string, string>; token?: string | null },
  ): Promise<Response>;
  readonly repo: { owner: string; repo: string };
}

export async function startHarness(options: GithubSandboxOptions = {}): Promise<Harness> {
  const sandbox = await startGithubSandbox(options);
  const octokit = new Octokit({
    baseUrl: sandbox.url,
    auth: sandbox.token,
    userAgent: "sandbox-test",
  });
  return {
    sandbox,
    octokit,
    repo: { owner: sandbox.owner, repo: sandbox.repo },
    call: (method, path, opts = {}) => {
      const token = opts.token === undefined ? sandbox.token : opts.token;
      const headers: Record<string, string> = {
        "user-agent": "sandbox-test",
        accept: "application/vnd.github+json",
        ...(token === null ? {} : { authorization: `token ${token}` }),
        ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
        ...opts.headers,
      };
      return fetch(`${sandbox.url}${path}`, {
        method,
        headers,
        ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
      });
    },
  };
}

/** The sorted keys of an object, recursively described as `key:type`. */
export function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, shape((value as Record<string, unknown>)[k])]),
  );
}
