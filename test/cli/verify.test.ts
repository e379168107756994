import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `verify` reads both sides and compares every linked pair through the mapping: clean right
 * after a migration (exit 0), dirty after a person retitles a linked issue or opens one of their
 * own (exit 4, the field and the unlinked issue named), and it writes nothing anywhere.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=4,tasks=2,comments=1");
  config = writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config, "--log-level", "warn"], {
    env: { ...servers.env },
  });

interface VerifyJson {
  summary: { pairs: number; equal: number; different: number; unlinked: number };
  differences: {
    kind: string;
    tinypmId: string;
    targetId: string;
    fields: { field: string; tinypm: unknown; target: unknown }[];
  }[];
  unlinked: { tinypm: { id: string }[]; target: { id: string; title: string }[] };
  cost: { items: number; requests: Record<string, number>; perItem: number };
}

const writes = (): number =>
  servers.tinypm.stats().writes + servers.github.stats().writes + servers.jira.stats().writes;

describe.each(["gh", "jr"] as const)("verify of job %s", (job) => {
  it("is clean after a migration, and dirty after a hand edit and a hand-made issue", async () => {
    expect(await cli("migrate", "--job", job)).toMatchObject({ code: 0 });
    const state = join(tmp.dir, "state.db");
    const stateBefore = readFileSync(state);
    const writesBefore = writes();

    const clean = await cli("verify", "--job", job, "--json");
    expect(clean.stderr).toBe("");
    const ok = JSON.parse(clean.stdout) as VerifyJson;
    expect(ok.differences).toEqual([]);
    expect(clean.code).toBe(0);
    // 4 stories and 8 tasks, each linked and equal.
    expect(ok.summary).toEqual({ pairs: 12, equal: 12, different: 0, unlinked: 0 });
    expect(ok.differences).toEqual([]);
    // One full read of each side, as a migration's plan reads them: never a request per pair.
    const plan = await cli("plan", "--job", job, "--migrate", "--json");
    const planned = JSON.parse(plan.stdout) as { apiCalls: Record<string, { reads: number }> };
    const planReads = Object.values(planned.apiCalls).reduce((a, b) => a + b.reads, 0);
    const requests = Object.values(ok.cost.requests).reduce((a, b) => a + b, 0);
    expect(ok.cost.items).toBe(24);
    expect(requests).toBeLessThanOrEqual(planReads);

    const text = await cli("verify", "--job", job);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/12 linked pairs compared: 12 equal, 0 different/);
    expect(text.stdout).toMatch(/Cost: \d+ requests .* per item; nothing written/);

    const target = jobTarget(servers, job);
    try {
      const copy = await target.findByMarker({
        job,
        origin: "tinypm",
        originKind: "story",
        originId: "1",
      });
      if (copy === undefined) throw new Error("story 1 has no copy on the target");
      await target.update({ kind: "story", id: copy.id }, { set: { title: "Retitled by hand" } });
      const own = await target.create({
        kind: "story",
        title: "A person's own issue",
        status: job === "gh" ? "open" : "To Do",
        assignees: [],
        labels: [],
      });

      const afterEdits = writes();
      const dirty = await cli("verify", "--job", job, "--json");
      expect(dirty.code).toBe(4);
      const found = JSON.parse(dirty.stdout) as VerifyJson;
      expect(found.summary).toEqual({ pairs: 12, equal: 11, different: 1, unlinked: 1 });
      expect(found.differences).toEqual([
        {
          kind: "story",
          tinypmId: "1",
          targetId: copy.id,
          title: expect.any(String) as string,
          url: expect.any(String) as string,
          fields: [{ field: "title", tinypm: copy.title, target: "Retitled by hand" }],
        },
      ]);
      expect(found.unlinked.tinypm).toEqual([]);
      expect(found.unlinked.target.map((u) => [u.id, u.title])).toEqual([
        [own.id, "A person's own issue"],
      ]);

      for (const format of ["markdown", "html"]) {
        const out = join(tmp.dir, `verify.${format}`);
        const r = await cli("verify", "--job", job, "--format", format, "--out", out);
        expect(r.code).toBe(4);
        expect(readFileSync(out, "utf8")).toContain("Retitled by hand");
      }
      // verify wrote nothing: not to tinyPM, not to the target, not to the state.
      expect(writes()).toBe(afterEdits);
      expect(afterEdits - writesBefore).toBe(2);
      expect(readFileSync(state).equals(stateBefore)).toBe(true);
    } finally {
      await target.close();
    }
  }, 120_000);
});
