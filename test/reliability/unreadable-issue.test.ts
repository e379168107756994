import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { ensureBuilt, runCli } from "./cli.js";
import {
  SECRETS,
  startCliWorld,
  startHostileProxy,
  type CliWorld,
  type HostileProxy,
} from "./cli-world.js";

/**
 * Issue 31: one GitHub or Jira issue whose JSON fails validation (a proxy breaking its `state`
 * or `status` in every answer) is parked with its id and a hint, and the run goes on with
 * everything else (exit 4): during `migrate` (its full read of the target), during `sync` (the
 * change feed), and during a `migrate` rerun that reads the target in full with `onDelete:
 * delete` (the bad issue's tinyPM story is not taken for deleted). Once the proxy stops, the
 * next sync picks it up.
 */

type Target = "github" | "jira";

interface Remote {
  /** Creates a person's issue (no marker) and returns its id. */
  create(title: string): Promise<string>;
  rename(id: string, title: string): Promise<void>;
  /** Every issue: id and title. */
  list(): Promise<{ id: string; title: string }[]>;
}

function githubRemote(w: CliWorld): Remote {
  const base = `${w.github.url}/repos/${w.github.owner}/${w.github.repo}/issues`;
  const call = async (method: string, url: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${SECRETS.github}`, "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status}`);
    return res.json();
  };
  return {
    create: async (title) =>
      String(((await call("POST", base, { title })) as { number: number }).number),
    rename: async (id, title) => {
      await call("PATCH", `${base}/${id}`, { title });
    },
    list: async () =>
      (
        (await call("GET", `${base}?state=all&per_page=100`)) as { number: number; title: string }[]
      ).map((i) => ({ id: String(i.number), title: i.title })),
  };
}

function jiraRemote(w: CliWorld): Remote {
  const auth = `Basic ${Buffer.from(`${w.jira.email}:${SECRETS.jira}`).toString("base64")}`;
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${w.jira.url}${path}`, {
      method,
      headers: { authorization: auth, "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : res.json();
  };
  return {
    create: async (summary) =>
      (
        (await call("POST", "/rest/api/3/issue", {
          fields: { project: { key: w.jira.projectKey }, summary, issuetype: { name: "Story" } },
        })) as { key: string }
      ).key,
    rename: async (key, summary) => {
      await call("PUT", `/rest/api/3/issue/${key}`, { fields: { summary } });
    },
    list: async () =>
      (
        (await call("POST", "/rest/api/3/search/jql", {
          jql: `project = ${w.jira.projectKey}`,
          fields: ["summary"],
          maxResults: 100,
        })) as { issues: { key: string; fields: { summary: string } }[] }
      ).issues.map((i) => ({ id: i.key, title: i.fields.summary })),
  };
}

/**
 * Breaks, in every JSON answer, the issue titled `title`: GitHub's `state` and Jira's `status`
 * no longer fit the schema, while the issue still says which one it is (number or key, title).
 */
function breaking(title: string): (body: string) => string {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const o = node as Record<string, unknown>;
    if (o.title === title) o.state = "haunted";
    const fields = o.fields as Record<string, unknown> | undefined;
    if (fields?.summary === title) fields.status = "haunted";
    if (Array.isArray(o.issues)) visit(o.issues);
  };
  return (body) => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return body;
    }
    visit(json);
    return JSON.stringify(json);
  };
}

describe.each<Target>(["github", "jira"])(
  "a %s issue whose payload fails validation is parked, the rest goes on",
  (target) => {
    let w: CliWorld;
    let proxy: HostileProxy;
    let remote: Remote;
    const job = target === "github" ? "gh" : "jr";
    const person = `Person's issue on ${target}`;
    let personId = "";
    let config = "";

    beforeAll(async () => {
      ensureBuilt();
      w = await startCliWorld({ generate: "stories=4,tasks=0,comments=1", viaProxy: false });
      proxy = await startHostileProxy(target === "github" ? w.github : w.jira);
      remote = target === "github" ? githubRemote(w) : jiraRemote(w);
      personId = await remote.create(person);
      config = w.config((c) => {
        const targets = c.targets as Record<string, Record<string, unknown>>;
        const t = targets[target];
        if (t !== undefined) t.baseUrl = proxy.url.replace(/\/$/, "");
        const jobs = c.jobs as Record<string, unknown>[];
        for (const j of jobs) j.onDelete = "delete";
      });
    });
    afterAll(async () => {
      await proxy.close();
      await w.close();
    });

    async function run(command: "migrate" | "sync") {
      const out = join(w.dir, `report-${command}-${Date.now().toString(36)}.json`);
      const r = await runCli(
        [command, "--config", config, "--job", job, "--json", "--format", "json", "--out", out],
        { env: w.env, cwd: w.dir },
      );
      const line = r.stdout.trim().split("\n").at(-1) ?? "{}";
      const summary = (JSON.parse(line) as { summary?: Record<string, number> }).summary ?? {};
      const report = JSON.parse(readFileSync(out, "utf8")) as {
        items: {
          kind: string;
          action: string;
          reason?: string;
          tinypmId?: string;
          targetId?: string;
          error?: { code: string; message: string };
        }[];
      };
      return { code: r.code, stderr: r.stderr, stdout: r.stdout, summary, items: report.items };
    }

    function parked() {
      const state = openSqliteStore({ path: w.statePath });
      try {
        return state.failures(job).map((f) => [f.side, f.targetId, f.code]);
      } finally {
        state.close();
      }
    }

    const system = target === "github" ? "GitHub" : "Jira";
    const stories = () => w.tinypm.store.storiesOf(1);

    it("migrate: exit 4, every story copied, the unreadable issue parked with its id and a hint", async () => {
      proxy.set({ route: /./, rewrite: breaking(person) });
      const r = await run("migrate");
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 4 });
      expect(r.summary).toMatchObject({ created: stories().length, failed: 1, deleted: 0 });
      const failed = r.items.filter((i) => i.action === "failed");
      expect(failed).toEqual([
        expect.objectContaining({
          targetId: personId,
          reason: `unreadable on ${system}`,
          error: {
            code: "payload_invalid",
            message: expect.stringMatching(
              new RegExp(
                `${system} issue #?${personId}\\b.*cannot be read.*${target === "github" ? "state" : "status"}.*not imported into tinyPM.*Open it in ${system}.*next run reads it again`,
              ),
            ) as unknown,
          },
        }),
      ]);
      expect(parked()).toEqual([["target", personId, "payload_invalid"]]);
    });

    it("sync once it reads: the person's issue imported into tinyPM once, nothing parked", async () => {
      proxy.set(undefined);
      const before = stories().length;
      const r = await run("sync");
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      expect(r.summary).toMatchObject({ created: 1, failed: 0 });
      expect(stories().map((s) => s.name)).toContain(person);
      expect(stories()).toHaveLength(before + 1);
      expect(parked()).toEqual([]);
    });

    it("sync: a linked issue edited and unreadable is parked; the other edit lands; nothing deleted", async () => {
      const [a, b] = stories().filter((s) => s.name !== person);
      if (a === undefined || b === undefined) throw new Error("too few stories");
      const issues = await remote.list();
      const ia = issues.find((i) => i.title === a.name);
      const ib = issues.find((i) => i.title === b.name);
      if (ia === undefined || ib === undefined) throw new Error("copies not found");
      await remote.rename(ia.id, `${a.name} (edited)`);
      await remote.rename(ib.id, `${b.name} (edited)`);
      proxy.set({ route: /./, rewrite: breaking(`${a.name} (edited)`) });
      const r = await run("sync");
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 4 });
      expect(r.summary).toMatchObject({ failed: 1, updated: 1, deleted: 0 });
      expect(r.items.filter((i) => i.action === "failed")).toEqual([
        expect.objectContaining({
          tinypmId: String(a.id),
          targetId: ia.id,
          reason: `unreadable on ${system}`,
          error: expect.objectContaining({
            message: expect.stringMatching(
              new RegExp(`tinyPM story ${a.id} and its link are left as they are`),
            ) as unknown,
          }) as unknown,
        }),
      ]);
      const names = stories().map((s) => s.name);
      expect(names).toContain(`${b.name} (edited)`);
      expect(names).toContain(a.name);

      // A migrate rerun reads the whole target (onDelete: delete): the story is not deleted.
      const again = await run("migrate");
      expect({ code: again.code, stderr: again.stderr }).toMatchObject({ code: 4 });
      expect(again.summary).toMatchObject({ failed: 1, deleted: 0, created: 0 });
      expect(stories().map((s) => s.id)).toContain(a.id);
      expect(parked()).toEqual([["target", ia.id, "payload_invalid"]]);
    });

    it("sync once it reads: the parked edit lands once, nothing parked, the next sync is quiet", async () => {
      proxy.set(undefined);
      const r = await run("sync");
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      expect(r.summary).toMatchObject({ failed: 0, updated: 1, created: 0, deleted: 0 });
      expect(stories().filter((s) => s.name.endsWith("(edited)"))).toHaveLength(2);
      expect(parked()).toEqual([]);
      const quiet = await run("sync");
      expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, deleted: 0 });
    });
  },
);
