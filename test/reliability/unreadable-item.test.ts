import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { ensureBuilt, runCli } from "./cli.js";
import { SECRETS, startCliWorld, type CliWorld } from "./cli-world.js";

/**
 * Issue 31: one story tinyPM sends broken (`</descripton>` closing `<description>`) parks that
 * story with its id and a hint, and the run goes on with everything else (exit 4). Its linked
 * issue is never closed, its link never lost; once it reads again, the next run picks it up.
 */
describe("a story tinyPM sends unreadable is parked, the rest goes on", () => {
  let w: CliWorld;
  let bad: { id: number; name: string };
  let other: { id: number; name: string };

  beforeAll(async () => {
    ensureBuilt();
    w = await startCliWorld({ generate: "stories=4,tasks=2,comments=1" });
    const stories = w.tinypm.store.storiesOf(1);
    // The bad story's issue is open: a deletion planned for it would close it.
    const a = stories.find((s) => (s.acceptanceStatus ?? "PENDING") === "PENDING");
    const b = stories.find((s) => s !== a);
    if (a === undefined || b === undefined) throw new Error("the dataset has too few stories");
    bad = { id: a.id, name: a.name };
    const { id: _id, ...rest } = a;
    w.tinypm.store.replaceStory(a.id, { ...rest, description: "Checkout takes\nthree steps." });
    other = { id: b.id, name: b.name };
  });
  afterAll(async () => {
    await w.close();
  });

  /** Breaks the XML of `bad`'s own document, as a server with a bug would send it. */
  const corrupt = (): void => {
    w.proxy.set({
      route: new RegExp(`/userstory/${bad.id}(\\?.*)?$`),
      rewrite: (body) => body.replace(/<\/description>/, "</descripton>"),
    });
  };

  async function run(command: "migrate" | "sync") {
    const out = join(w.dir, `report-${command}-${Date.now().toString(36)}.json`);
    const r = await runCli(
      [command, "--config", w.config(), "--job", "gh", "--json", "--format", "json", "--out", out],
      { env: w.env, cwd: w.dir },
    );
    const summary = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as {
      summary: Record<string, number>;
    };
    const report = JSON.parse(readFileSync(out, "utf8")) as {
      items: {
        kind: string;
        action: string;
        tinypmId?: string;
        targetId?: string;
        error?: { code: string; message: string };
      }[];
    };
    return { code: r.code, stderr: r.stderr, summary: summary.summary, items: report.items };
  }

  async function issues(): Promise<{ number: number; title: string; state: string }[]> {
    const res = await fetch(
      `${w.github.url}/repos/${w.github.owner}/${w.github.repo}/issues?state=all&per_page=100`,
      { headers: { authorization: `Bearer ${SECRETS.github}` } },
    );
    return (await res.json()) as { number: number; title: string; state: string }[];
  }

  function parked() {
    const state = openSqliteStore({ path: w.statePath });
    try {
      return state.failures("gh");
    } finally {
      state.close();
    }
  }

  const tasksOfBad = (): number => w.tinypm.store.tasksOf(bad.id).length;

  it("plan --migrate: the bad story listed as failed with its id, the rest planned, nothing written", async () => {
    corrupt();
    const writes = w.writes();
    const r = await runCli(
      ["plan", "--migrate", "--config", w.config(), "--job", "gh", "--json", "--detailed-exitcode"],
      { env: w.env, cwd: w.dir },
    );
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 4 });
    const report = JSON.parse(r.stdout) as {
      summary: Record<string, number>;
      items: { action: string; kind: string; tinypmId?: string; error?: { code: string } }[];
    };
    expect(report.summary).toMatchObject({ failed: 1 });
    expect(report.summary.created).toBeGreaterThan(0);
    expect(report.items.filter((i) => i.action === "failed")).toEqual([
      expect.objectContaining({
        kind: "story",
        tinypmId: String(bad.id),
        error: expect.objectContaining({ code: "payload_invalid" }) as unknown,
      }),
    ]);
    expect(w.writes()).toEqual(writes);
  });

  it("migrate: exit 4, the other stories and their tasks created, the bad one parked with a hint", async () => {
    corrupt();
    const r = await run("migrate");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 4 });
    expect(r.summary).toMatchObject({ failed: 1, conflicts: 0 });
    const failed = r.items.filter((i) => i.action === "failed");
    expect(failed).toEqual([
      expect.objectContaining({
        kind: "story",
        tinypmId: String(bad.id),
        error: {
          code: "payload_invalid",
          message: expect.stringMatching(
            new RegExp(
              `story ${bad.id} .*cannot be read: .*</descripton> closes <description>, line \\d+.*Fix the story in tinyPM.*run again`,
            ),
          ) as unknown,
        },
      }),
    ]);
    const titles = (await issues()).map((i) => i.title);
    expect(titles).toContain(other.name);
    expect(titles).not.toContain(bad.name);
    // Every story but the bad one, each with its tasks; none of the bad one's tasks.
    const stories = w.tinypm.store.storiesOf(1).length;
    const tasks = w.tinypm.store
      .storiesOf(1)
      .reduce((n, s) => n + w.tinypm.store.tasksOf(s.id).length, 0);
    expect(r.summary.created).toBe(stories - 1 + tasks - tasksOfBad());
    expect(parked().map((f) => [f.kind, f.tinypmId, f.code])).toEqual([
      ["story", String(bad.id), "payload_invalid"],
    ]);
  });

  it("migrate again once it reads: the story and its tasks created exactly once", async () => {
    w.proxy.set(undefined);
    const r = await run("migrate");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.summary).toMatchObject({ created: 1 + tasksOfBad(), failed: 0 });
    expect((await issues()).filter((i) => i.title === bad.name)).toHaveLength(1);
    expect(parked()).toEqual([]);
  });

  it("sync: an edited story that turns unreadable keeps its issue open and its link; the rest syncs", async () => {
    const store = w.tinypm.store;
    const edit = (id: number, name: string): void => {
      const s = store.storiesOf(1).find((x) => x.id === id);
      if (s === undefined) throw new Error(`no story ${id}`);
      const { id: _id, ...rest } = s;
      store.replaceStory(id, { ...rest, name });
    };
    edit(bad.id, `${bad.name} (edited)`);
    edit(other.id, `${other.name} (edited)`);
    corrupt();
    const before = await issues();
    const r = await run("sync");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 4 });
    expect(r.summary).toMatchObject({ failed: 1, updated: 1, deleted: 0 });
    expect(r.items.find((i) => i.action === "failed")).toMatchObject({
      kind: "story",
      tinypmId: String(bad.id),
      error: { code: "payload_invalid" },
    });
    const after = await issues();
    const badIssue = after.find((i) => i.title === bad.name);
    expect(badIssue?.state).toBe("open");
    expect(after.filter((i) => i.state === "closed").map((i) => i.number)).toEqual(
      before.filter((i) => i.state === "closed").map((i) => i.number),
    );
    expect(after.map((i) => i.title)).toContain(`${other.name} (edited)`);
    expect(r.items.filter((i) => i.action === "delete")).toEqual([]);
  });

  it("sync once it reads: the edit lands once, on the same issue, and nothing stays parked", async () => {
    w.proxy.set(undefined);
    const r = await run("sync");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.summary).toMatchObject({ failed: 0, created: 0, deleted: 0, updated: 1 });
    const all = await issues();
    expect(all.filter((i) => i.title.startsWith(bad.name)).map((i) => [i.title, i.state])).toEqual([
      [`${bad.name} (edited)`, "open"],
    ]);
    expect(parked()).toEqual([]);
    const again = await run("sync");
    expect(again.summary).toMatchObject({ created: 0, updated: 0, failed: 0 });
  });
});
