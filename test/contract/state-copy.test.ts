import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliContext } from "../../src/cli/context.js";
import { runCli } from "../../src/cli/run.js";
import { openState, type StateLocation } from "../../src/state/open-state.js";
import type { StateStore } from "../../src/state/store.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { link } from "./support/state-suite.js";

// `state migrate`: SQLite → PostgreSQL → SQLite through the real command, every kind of row,
// verified by counts and hashes; a non-empty destination is refused unless told.
let server: PostgresServer | undefined;
let n = 0;
const dir = mkdtempSync(join(tmpdir(), "state-copy-"));
beforeAll(async () => {
  if (postgresSkipReason === undefined) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const sink = (add: (s: string) => void) =>
    ({ write: (s: string) => (add(s), true), isTTY: false }) as unknown as CliContext["stdout"];
  const ctx: CliContext = {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    env,
    cwd: dir,
    signal: new AbortController().signal,
    waitForStop: () => new Promise(() => undefined),
    exitCode: 0,
  };
  const code = await runCli(args, ctx);
  return { code, stdout, stderr };
}

/** A state with rows in every copied table, unicode and nulls included. */
async function fill(s: StateStore): Promise<void> {
  for (let i = 0; i < 1100; i += 1)
    await s.putLink(link(String(i), `g${i}`, i % 3 === 0 ? "b" : "a"));
  await s.putLink({ ...link("ü-1", "é", "a", "task"), parentTinypmId: "1" });
  // An interrupted write's record travels with its link.
  await s.recordPendingWrites("a", "story", "1", [
    {
      side: "tinypm",
      fields: { status: "ACCEPTED", estimate: null },
      startedAt: "2026-11-24T10:00:01Z",
    },
    {
      side: "target",
      fields: { title: "é" },
      updatedAt: "2026-11-24T09:00:00Z",
      startedAt: "2026-11-24T10:00:01Z",
    },
  ]);
  await s.putLinkIdentity("a", "story", "1", {
    marker: { tinypmId: "1" } as never,
    meta: { x: "✓" },
  });
  await s.setCheckpoint("a", "github", { since: "2026-11-24T00:00:00Z", etag: 'W/"x"' });
  const i1 = await s.recordIntent({
    job: "a",
    kind: "story",
    originSystem: "tinypm",
    originId: "900",
    targetSystem: "github",
    payloadHash: "p",
  });
  await s.recordIntent({
    job: "a",
    kind: "story",
    originSystem: "tinypm",
    originId: "901",
    targetSystem: "github",
    payloadHash: "q",
  });
  await s.dropIntent(i1);
  // Import claims of two jobs sharing a repository (one pending, one with its intent dropped).
  const claim = (job: string, originId: string) => ({
    job,
    kind: "story" as const,
    originSystem: "github" as const,
    originId,
    targetSystem: "tinypm" as const,
    payloadHash: "c",
  });
  await s.claimImport(claim("a", "g-ü"), "github:api.github.com/acme/wéb");
  await s.claimImport(claim("b", "g-2"), "github:api.github.com/acme/wéb");
  await s.requestRun("a", "webhook");
  await s.requestRun("a", "manual");
  const dropped = await s.claimImport(claim("a", "g-3"), "github:api.github.com/acme/wéb");
  await s.dropIntent(dropped.intentId ?? 0);
  const r = await s.startRun("a", "sync");
  await s.finishRun(r, {
    outcome: "partial",
    counts: { created: 3 },
    apiCalls: { github: { writes: 3 } },
  });
  await s.startRun("b", "migrate");
  await s.parkFailure({
    runId: r,
    job: "a",
    kind: "story",
    targetId: "g5",
    side: "target",
    code: "not_found",
    message: "gone",
  });
  const c = await s.openConflict({
    job: "a",
    kind: "story",
    tinypmId: "1",
    targetId: "g1",
    field: "title",
    baseValue: null,
    tinypmValue: "x",
    targetValue: { y: [1] },
  });
  await s.resolveConflict(c, "tinypm");
}

async function everything(loc: StateLocation) {
  const s = await openState(loc, { readOnly: true });
  try {
    const links = [];
    for await (const l of s.links("a")) links.push(l);
    return {
      links,
      b: await s.countLinks("b"),
      identity: await s.getLinkIdentity("a", "story", "1"),
      checkpoint: await s.getCheckpoint("a", "github"),
      intents: await s.pendingIntents("a"),
      claims: await s.importClaims("github", "github:api.github.com/acme/wéb", [
        "g-ü",
        "g-2",
        "g-3",
      ]),
      runs: await s.runs(),
      failures: await s.failures(),
      conflicts: await s.conflicts(),
      runRequests: await s.runRequests(),
    };
  } finally {
    await s.close();
  }
}

describe.skipIf(postgresSkipReason !== undefined)(
  `tinypm-sync state migrate${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("copies SQLite into PostgreSQL and back, the same row for row, verified per table", async () => {
      const first = join(dir, `first-${(n += 1)}.db`);
      const s = await openState({ backend: "sqlite", path: first });
      await fill(s);
      await s.close();
      const url = (await server?.createDatabase(`copy_${n}`)) ?? "";
      const password = server?.password ?? "";
      const toPg = await cli(
        ["state", "migrate", "--from", first, "--to", "env:STATE_URL", "--json"],
        { STATE_URL: url },
      );
      expect(toPg.stderr).toBe("");
      expect(toPg.code).toBe(0);
      const report = JSON.parse(toPg.stdout) as {
        to: string;
        verified: boolean;
        tables: { table: string; rows: number; sha256: string; destinationSha256: string }[];
      };
      expect(report.verified).toBe(true);
      expect(report.to).not.toContain(password);
      expect(Object.fromEntries(report.tables.map((t) => [t.table, t.rows]))).toEqual({
        links: 1101,
        link_identity: 1,
        checkpoints: 1,
        intents: 3,
        runs: 2,
        failures: 1,
        conflicts: 1,
        import_claims: 2,
        run_requests: 1,
      });
      for (const t of report.tables) expect(t.destinationSha256).toBe(t.sha256);

      const back = join(dir, `back-${n}.db`);
      const toSqlite = await cli(["state", "migrate", "--from", "env:STATE_URL", "--to", back], {
        STATE_URL: url,
      });
      expect(toSqlite.code).toBe(0);
      expect(toSqlite.stdout).toMatch(/Verified: every table has the same row count and hash/);
      expect(toSqlite.stdout).not.toContain(password);
      const original = await everything({ backend: "sqlite", path: first });
      expect(Object.fromEntries(original.claims)).toEqual({ "g-ü": "a", "g-2": "b" });
      expect(await everything({ backend: "postgres", url })).toEqual(original);
      expect(await everything({ backend: "sqlite", path: back })).toEqual(original);
      expect(original.links).toHaveLength(734);
      expect(original.links.find((l) => l.tinypmId === "1")?.pendingWrites).toHaveLength(2);

      // The copy goes on where the original stopped: new ids come after the copied ones.
      const pg = await openState({ backend: "postgres", url });
      try {
        const next = await pg.recordIntent({
          job: "a",
          kind: "story",
          originSystem: "tinypm",
          originId: "902",
          targetSystem: "github",
          payloadHash: "r",
        });
        expect(next).toBeGreaterThan(original.intents[0]?.id ?? Infinity);
      } finally {
        await pg.close();
      }
    });

    it("refuses a destination that holds data, writes nothing, and replaces it when told", async () => {
      const a = join(dir, `a-${(n += 1)}.db`);
      const sa = await openState({ backend: "sqlite", path: a });
      await sa.putLink(link("1", "7"));
      await sa.close();
      const url = (await server?.createDatabase(`copy_${n}`)) ?? "";
      const sb = await openState({ backend: "postgres", url });
      await sb.putLink(link("2", "8"));
      await sb.putLink(link("3", "9"));
      await sb.close();
      const refused = await cli(["state", "migrate", "--from", a, "--to", "env:U"], { U: url });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /error \[state_invalid\]: The destination state .* is not empty: links \(2\); nothing was copied/,
      );
      expect(refused.stderr).toMatch(/--overwrite/);
      expect((await everything({ backend: "postgres", url })).links.map((l) => l.tinypmId)).toEqual(
        [],
      );
      const pgAll = await openState({ backend: "postgres", url }, { readOnly: true });
      expect(await pgAll.countLinks("w")).toBe(2);
      await pgAll.close();
      const replaced = await cli(
        ["state", "migrate", "--from", a, "--to", "env:U", "--overwrite"],
        { U: url },
      );
      expect(replaced.code).toBe(0);
      const after = await openState({ backend: "postgres", url }, { readOnly: true });
      const ids: string[] = [];
      for await (const l of after.links("w")) ids.push(l.tinypmId);
      await after.close();
      expect(ids).toEqual(["1"]);
    });

    it("status and conflicts read a PostgreSQL state named by state.urlEnv, its password never shown", async () => {
      const url = (await server?.createDatabase(`status_${(n += 1)}`)) ?? "";
      const s = await openState({ backend: "postgres", url });
      await s.putLink(link("1", "7", "widgets"));
      const run = await s.startRun("widgets", "sync");
      await s.finishRun(run, { outcome: "ok", counts: { created: 1 }, apiCalls: {} });
      await s.openConflict({
        job: "widgets",
        kind: "story",
        tinypmId: "1",
        targetId: "7",
        field: "title",
        baseValue: "a",
        tinypmValue: "b",
        targetValue: "c",
      });
      await s.close();
      const config = join(dir, `pg-config-${n}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          tinypm: { baseUrl: "http://127.0.0.1:1/tinypm/api", tokenEnv: "TINYPM_TOKEN" },
          targets: { gh: { type: "github", owner: "o", repo: "r", tokenEnv: "GITHUB_TOKEN" } },
          jobs: [
            { name: "widgets", tinypmProject: 1, target: "gh", mapping: "mappings/github.yaml" },
          ],
          state: { urlEnv: "STATE_URL" },
        }),
      );
      const status = await cli(["status", "--config", config, "--json"], { STATE_URL: url });
      expect(status.stderr).toBe("");
      expect(status.code).toBe(0);
      const out = JSON.parse(status.stdout) as {
        state: string;
        jobs: { job: string; links: number }[];
      };
      expect(out.state).toContain("***");
      expect(status.stdout).not.toContain(server?.password ?? "");
      expect(out.jobs).toMatchObject([{ job: "widgets", links: 1 }]);
      const list = await cli(["conflicts", "list", "--config", config], { STATE_URL: url });
      expect(list.stdout).toMatch(/#1 widgets story 1 ⇄ 7 field title/);
      const resolved = await cli(
        ["conflicts", "resolve", "1", "--take", "target", "--config", config],
        { STATE_URL: url },
      );
      expect(resolved.code).toBe(0);
      const after = await openState({ backend: "postgres", url }, { readOnly: true });
      expect((await after.conflicts())[0]).toMatchObject({
        status: "resolved",
        resolution: "target",
      });
      await after.close();
    });

    it("names a missing source file and the same state on both sides as usage errors", async () => {
      const missing = await cli(["state", "migrate", "--from", "nope.db", "--to", "x.db"]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/--from .*nope\.db: there is no state file there/);
      const same = await cli(["state", "migrate", "--from", "x.db", "--to", join(dir, "x.db")]);
      expect(same.stderr).toMatch(/--from and --to name the same state/);
      const unset = await cli(["state", "migrate", "--from", "env:NOPE", "--to", "x.db"]);
      expect(unset.stderr).toMatch(/environment variable NOPE is not set/);
    });
  },
);
