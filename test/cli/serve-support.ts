import { readFileSync, writeFileSync } from "node:fs";
import { Webhooks } from "@octokit/webhooks";
import type { ConfigInput } from "../../src/config/schema.js";
import { startCliProcess, waitForOutput, type CliProcess } from "./spawn.js";

/** Polls `check` until it returns a value other than undefined (generous timeout, no timing bets). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Rewrites a config file written by `writeConfig`. */
export function editConfig(file: string, edit: (config: ConfigInput) => void): void {
  const config = JSON.parse(readFileSync(file, "utf8")) as ConfigInput;
  edit(config);
  writeFileSync(file, JSON.stringify(config, null, 2));
}

/** A running `serve`: its base URL and the process. */
export interface Served {
  readonly url: string;
  readonly proc: CliProcess;
}

export async function startServe(
  config: string,
  env: Record<string, string>,
  extra: readonly string[] = [],
): Promise<Served> {
  const proc = startCliProcess(
    ["serve", "--config", config, "--port", "0", "--debounce", "100", ...extra],
    { env },
  );
  await waitForOutput(proc, (o) => o.stdout.includes("\n"));
  const first = proc.output().stdout.split("\n")[0] ?? "";
  const m = /^tinypm-sync listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
  if (m?.[1] === undefined) throw new Error(`unexpected first line: ${first}`);
  return { url: m[1], proc };
}

export async function getJson<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Prometheus text → `name{labels}` → value (labels in the order prom-client writes them). */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Signs and posts a GitHub delivery as GitHub does. */
export async function postGithubDelivery(
  url: string,
  secret: string,
  event: string,
  id: string,
  payload: unknown,
): Promise<Response> {
  const body = JSON.stringify(payload);
  const signature = await new Webhooks({ secret }).sign(body);
  return fetch(`${url}/webhooks/github`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": id,
      "x-hub-signature-256": signature,
      "user-agent": "GitHub-Hookshot/test",
    },
    body,
  });
}
