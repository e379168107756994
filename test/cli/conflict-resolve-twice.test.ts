import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypm } from "../../src/adapters/registry.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe } from "./serve-support.js";
import { runCliProcess } from "./spawn.js";

/**
 * A conflict's resolution is explicit (issue 31): resolving a conflict already resolved with the
 * other side is refused — `conflict_resolved`, exit 2 on the CLI, 409 from `serve` — saying when
 * and how it was resolved; `--reopen` (`"reopen": true`) changes the decision on purpose, and the
 * next sync applies the last decision. Real servers, the built CLI and `serve`, a SQLite state.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();
const STORY = "1";
let conflictId = 0;
let copyId = "";

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config, "--log-level", "warn"], {
    env: { ...servers.env },
  });

beforeAll(async () => {
  servers = await startServers("stories=1,tasks=0,comments=0");
  config = writeConfig(tmp.dir, servers);
  editConfig(config, (c) => {
    c.jobs = c.jobs
      .filter((j) => j.name === "gh")
      .map((j) => ({ ...j, schedule: { every: "1h" } }));
  });
  const migrated = await cli("migrate", "--job", "gh");
  if (migrated.code !== 0) throw new Error(migrated.stderr);
  const tinypm = createTinypm({
    baseUrl: servers.tinypm.url,
    token: servers.tinypm.token,
    projectId: 1,
  });
  const target = jobTarget(servers, "gh");
  try {
    const story = await tinypm.get({ kind: "story", id: STORY });
    const copy = await target.findByMarker({
      job: "gh",
      origin: "tinypm",
      originKind: "story",
      originId: STORY,
    });
    if (story === undefined || copy === undefined) throw new Error("story 1 missing");
    copyId = copy.id;
    await tinypm.update(
      { kind: "story", id: STORY },
      { set: { title: "Title in tinyPM" }, base: story },
    );
    await target.update({ kind: "story", id: copy.id }, { set: { title: "Title on target" } });
  } finally {
    await Promise.allSettled([tinypm.close(), target.close()]);
  }
  const parked = await cli("sync", "--job", "gh");
  if (parked.code !== 4) throw new Error(`expected a parked conflict: ${parked.stderr}`);
  // The parked conflict's id, read from the state in-process (a CLI start saved): the CLI's
  // `conflicts list --json` is checked below, after the resolutions.
  const state = openSqliteStore({ path: join(tmp.dir, "state.db"), readOnly: true });
  try {
    const [open] = state.conflicts({ job: "gh", status: "open" });
    if (open === undefined) throw new Error("the sync parked no conflict");
    conflictId = open.id;
  } finally {
    state.close();
  }
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

interface Answer {
  status: number;
  body: { code?: string; message?: string; hint?: string; resolution?: string };
}

describe("serve: a second resolve of a conflict", () => {
  it("is refused with 409 conflict_resolved unless reopen is asked, on the API and the form", async () => {
    const served = await startServe(config, servers.env);
    try {
      // The startup run settles first (it parks the conflict again, still open).
      await eventually(async () => {
        const { jobs } = await getJson<{
          jobs: { name: string; running: boolean; lastRun: unknown }[];
        }>(`${served.url}/api/jobs`);
        const gh = jobs.find((j) => j.name === "gh");
        return gh !== undefined && gh.lastRun !== null && !gh.running ? gh : undefined;
      }, "the startup run");
      const post = async (body: unknown): Promise<Answer> => {
        const res = await fetch(`${served.url}/api/conflicts/${conflictId}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Answer["body"] };
      };
      expect((await post({ take: "tinypm" })).status).toBe(200);
      const refused = await post({ take: "target" });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("conflict_resolved");
      expect(refused.body.message).toContain("tinyPM's value was taken");
      expect(refused.body.hint).toContain('"reopen":true');
      // The same side again is no change of mind: accepted, nothing changed.
      expect((await post({ take: "tinypm" })).status).toBe(200);

      const html = await (await fetch(`${served.url}/`)).text();
      const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? "";
      const form = (extra: string) =>
        fetch(`${served.url}/conflicts/${conflictId}/resolve`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `csrf=${csrf}&take=target${extra}`,
          redirect: "manual",
        });
      expect((await form("")).status).toBe(409);
      expect((await form("&reopen=true")).status).toBe(303);
      const again = await post({ take: "tinypm" });
      expect(again.status).toBe(409);
      expect(again.body.message).toContain("the target's value was taken");
      expect((await post({ take: "target", reopen: true })).status).toBe(200);
    } finally {
      served.proc.kill("SIGTERM");
      await served.proc.done;
    }
  });
});

describe("conflicts resolve twice", () => {
  it("refuses the other side with exit 2, conflict_resolved, naming when and how", async () => {
    const refused = await cli("conflicts", "resolve", String(conflictId), "--take", "tinypm");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("error [conflict_resolved]");
    expect(refused.stderr).toMatch(
      /was already resolved at \d{4}-\d\d-\d\dT[^:]+:\d\d:\d\d(\.\d+)?Z: the target's value was taken \(--take target\)/,
    );
    expect(refused.stderr).toContain(
      `tinypm-sync conflicts resolve ${conflictId} --take tinypm --reopen`,
    );
    const list = JSON.parse((await cli("conflicts", "list", "--json")).stdout) as unknown[];
    expect(list).toEqual([]);
  });

  it("takes the same side again as no change", async () => {
    const same = await cli("conflicts", "resolve", String(conflictId), "--take", "target");
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("nothing changed");
  });

  it("changes its mind with --reopen, and the next sync applies the last decision", async () => {
    const reopened = await cli(
      "conflicts",
      "resolve",
      String(conflictId),
      "--take",
      "tinypm",
      "--reopen",
    );
    expect(reopened.code).toBe(0);
    expect(reopened.stdout).toContain("reopened and resolved again: tinypm wins (was target)");
    expect((await cli("sync", "--job", "gh")).code).toBe(0);
    const target = jobTarget(servers, "gh");
    try {
      expect((await target.get({ kind: "story", id: copyId }))?.title).toBe("Title in tinyPM");
    } finally {
      await target.close();
    }
  });
});
