import { HttpException, Version3Client } from "jira.js";
import type { JiraSandbox } from "../../src/sandboxes/jira/index.js";

/** A minimal ADF document with one paragraph. */
export function doc(text: string) {
  return {
    type: "doc",
    version: 1,
    content: [{ type: "paragraph", content: [{ type: "text", text }] }],
  };
}

export function jiraClient(sandbox: JiraSandbox): Version3Client {
  return new Version3Client({
    host: sandbox.url,
    authentication: { basic: { email: sandbox.email, apiToken: sandbox.token } },
  });
}

/** The HTTP status and body of a failed jira.js call (200 when it succeeded). */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ status: number; data: unknown }> {
  try {
    await promise;
    return { status: 200, data: undefined };
  } catch (error) {
    if (error instanceof HttpException) {
      const response = error.response as { data?: unknown };
      return { status: error.status, data: response.data };
    }
    throw error;
  }
}

/** An authenticated fetch against the sandbox (for what jira.js hides or rewrites). */
export function authedFetch(
  sandbox: JiraSandbox,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const auth = Buffer.from(`${sandbox.email}:${sandbox.token}`).toString("base64");
  return fetch(`${sandbox.url}${path}`, {
    ...init,
    headers: {
      authorization: `Basic ${auth}`,
      "content-type": "application/json",
      ...(init.headers as Record<string, string> | undefined),
    },
  });
}

export function story(summary: string, extra: Record<string, unknown> = {}) {
  return { fields: { project: { key: "WID" }, issuetype: { name: "Story" }, summary, ...extra } };
}

/** A person's request to the sandbox's REST API (v3 on Cloud, v2 on Data Center). */
export async function personRequest(
  sandbox: JiraSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const dc = sandbox.deployment === "datacenter";
  const auth = dc
    ? `Bearer ${sandbox.token}`
    : `Basic ${Buffer.from(`${sandbox.email}:${sandbox.token}`).toString("base64")}`;
  const res = await fetch(`${sandbox.url}/rest/api/${dc ? "2" : "3"}${path}`, {
    method,
    headers: { authorization: auth, "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${String(res.status)}`);
  return res.status === 204 ? undefined : res.json();
}

/** The JQL searches the sandbox has answered so far. */
export function searchCount(sandbox: JiraSandbox): number {
  return Object.entries(sandbox.stats().byRoute)
    .filter(([route]) => route.includes("/search"))
    .reduce((n, [, count]) => n + count, 0);
}
