import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportProject, type TinypmArchive } from "../../src/adapters/registry.js";
import type { ItemKind, WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { ReferenceServer } from "../../src/reference-server/index.js";
import { PROPERTY_KEY } from "../../src/adapters/jira/schema.js";
import type { World } from "./world.js";

/** Helpers of the identity tests: counts, archives, and removing hidden blocks by hand. */

export async function allItems(tracker: Tracker): Promise<WorkItem[]> {
  const out: WorkItem[] = [];
  for await (const item of tracker.list({})) out.push(item);
  return out;
}

export interface Counts {
  readonly story: number;
  readonly task: number;
}

export async function countItems(tracker: Tracker): Promise<Counts> {
  const items = await allItems(tracker);
  const n = (k: ItemKind): number => items.filter((i) => i.kind === k).length;
  return { story: n("story"), task: n("task") };
}

/** The tinyPM project as `export` writes it (project 1 of a reference server). */
export function archiveOf(server: ReferenceServer): Promise<TinypmArchive> {
  return exportProject({ baseUrl: server.url, token: server.token, projectId: 1 });
}

/** A fresh state path in its own directory (another installation, or a lost state). */
export function freshStatePath(): string {
  return join(mkdtempSync(join(tmpdir(), "tps-identity-")), "state.db");
}

/** Deletes a state file and its WAL companions, as a lost CI cache would. */
export function deleteState(path: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"])
    rmSync(`${path}${suffix}`, { force: true });
}

/**
 * Removes an item's hidden block the way a person would: on GitHub the body loses its trailing
 * `<!-- tinypm-sync:… -->` block (as a web-editor edit can do), on Jira the entity property is
 * deleted.
 */
export async function stripBlock(world: World, id: string, lenient = false): Promise<void> {
  const t = world.target;
  if (t.kind === "github") {
    const s = t.server;
    const path = `${s.url}/repos/${s.owner}/${s.repo}/issues/${id}`;
    const headers = {
      authorization: `token ${s.token}`,
      accept: "application/vnd.github+json",
      "content-type": "application/json",
      "user-agent": "identity-test",
    };
    const got = (await (await fetch(path, { headers })).json()) as { body: string | null };
    const body = (got.body ?? "").replace(/\n*<!-- tinypm-sync:v\d \{.*?\} -->\s*$/s, "");
    if (body === got.body) {
      if (lenient) return;
      throw new Error(`issue ${id} had no block to strip`);
    }
    const res = await fetch(path, { method: "PATCH", headers, body: JSON.stringify({ body }) });
    if (!res.ok) throw new Error(`strip ${id}: ${String(res.status)}`);
    return;
  }
  const s = t.server;
  const auth = Buffer.from(`${s.email}:${s.token}`).toString("base64");
  const res = await fetch(`${s.url}/rest/api/3/issue/${id}/properties/${PROPERTY_KEY}`, {
    method: "DELETE",
    headers: { authorization: `Basic ${auth}`, accept: "application/json" },
  });
  if (res.status !== 204 && !(lenient && res.status === 404))
    throw new Error(`strip ${id}: ${String(res.status)}`);
}

/** The raw text where a target keeps an item's block (GitHub body; Jira entity property JSON). */
export async function rawBlock(world: World, id: string): Promise<string> {
  const t = world.target;
  if (t.kind === "github") {
    const s = t.server;
    const res = await fetch(`${s.url}/repos/${s.owner}/${s.repo}/issues/${id}`, {
      headers: { authorization: `token ${s.token}`, "user-agent": "identity-test" },
    });
    return ((await res.json()) as { body: string | null }).body ?? "";
  }
  const s = t.server;
  const auth = Buffer.from(`${s.email}:${s.token}`).toString("base64");
  const res = await fetch(`${s.url}/rest/api/3/issue/${id}/properties/${PROPERTY_KEY}`, {
    headers: { authorization: `Basic ${auth}`, accept: "application/json" },
  });
  return res.status === 200 ? JSON.stringify(await res.json()) : "";
}

/** A new issue on the target, as a person would open it. */
export function openIssue(world: World, tracker: Tracker, title: string): Promise<WorkItem> {
  return tracker.create({
    kind: "story",
    title,
    description: `${title}, opened by hand`,
    status: world.target.kind === "github" ? "open" : "To Do",
    assignees: [],
    labels: [],
  });
}

/**
 * Makes an item's block look like one an older release wrote: version 1 (GitHub) and an email
 * and a full name inside the metadata.
 */
export async function plantLegacyBlock(world: World, id: string): Promise<void> {
  const legacy = { legacy: { email: "leak@example.com", name: "Leak Person" } };
  const t = world.target;
  if (t.kind === "github") {
    const s = t.server;
    const path = `${s.url}/repos/${s.owner}/${s.repo}/issues/${id}`;
    const headers = {
      authorization: `token ${s.token}`,
      "content-type": "application/json",
      "user-agent": "identity-test",
    };
    const body = await rawBlock(world, id);
    const planted = body
      .replace("<!-- tinypm-sync:v2 {", "<!-- tinypm-sync:v1 {")
      .replace(`"meta":{`, `"meta":{"legacy":${JSON.stringify(legacy.legacy)},`);
    if (planted === body) throw new Error(`issue ${id} had no block`);
    const res = await fetch(path, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ body: planted }),
    });
    if (!res.ok) throw new Error(`plant ${id}: ${String(res.status)}`);
    return;
  }
  const s = t.server;
  const auth = Buffer.from(`${s.email}:${s.token}`).toString("base64");
  const url = `${s.url}/rest/api/3/issue/${id}/properties/${PROPERTY_KEY}`;
  const headers = { authorization: `Basic ${auth}`, accept: "application/json" };
  const got = (await (await fetch(url, { headers })).json()) as {
    value: { meta?: Record<string, unknown> };
  };
  const value = { ...got.value, meta: { ...got.value.meta, ...legacy } };
  const res = await fetch(url, {
    method: "PUT",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(value),
  });
  if (!res.ok) throw new Error(`plant ${id}: ${String(res.status)}`);
}

/** Everything a target shows or hides about its items: bodies, comments, blocks. */
export async function everythingOnTarget(
  world: World,
  items: readonly WorkItem[],
): Promise<string> {
  const parts: string[] = [];
  for (const item of items) {
    parts.push(await rawBlock(world, item.id), item.description ?? "");
    for (const c of item.comments) parts.push(c.body);
    for (const e of item.timeEntries) parts.push(e.comment ?? "");
  }
  return parts.join("\n");
}
