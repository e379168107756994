import Database from "better-sqlite3";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { badCases, type BadCase } from "./bad-input-cases.js";
import { ensureBuilt, runCli } from "./cli.js";
import { startCliWorld, type CliWorld } from "./cli-world.js";
import { createFigures } from "./figures.js";
import { stateDigest } from "./state-digest.js";

const figures = createFigures("bad-input");

describe("bad input is refused with a clear error and changes nothing", () => {
  let w: CliWorld;

  beforeAll(async () => {
    ensureBuilt();
    w = await startCliWorld();
    // A state with content, so that "unchanged" means something.
    for (const job of ["gh", "jr"]) {
      const r = await runCli(["migrate", "--config", w.config(), "--job", job], {
        env: w.env,
        cwd: w.dir,
      });
      if (r.code !== 0) throw new Error(`setup migrate ${job} failed: ${r.stderr}`);
    }
  });
  afterAll(async () => {
    figures.save();
    await w.close();
  });

  /** Runs the bad case; what it printed and what changed around it. */
  async function refuse(c: BadCase) {
    const args = await c.setup(w);
    const writes = w.writes();
    // A parked item is recorded (failures) and the run, gone to its end, stores its checkpoints;
    // what was synced (links and their bases, intents) never moves.
    const tables = c.perItem === true ? (["links", "intents"] as const) : undefined;
    const state = stateDigest(w.statePath, tables);
    try {
      const r = await runCli(args, { env: c.env?.(w) ?? w.env, cwd: w.dir });
      figures.add({ badInputs: 1 });
      const stateAfter = stateDigest(w.statePath, tables);
      return { r, writes, state, writesAfter: w.writes(), stateAfter };
    } finally {
      c.teardown?.(w);
    }
  }

  it.each(badCases().map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const { r, writes, state, writesAfter, stateAfter } = await refuse(c);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: c.exit });
    // A parked item's error is in the report (stdout); a refusal of the run on stderr.
    const said = c.perItem === true ? r.stdout : r.stderr;
    expect(said).toContain(`error [${c.code}]: `);
    expect(said).toMatch(c.message);
    expect(r.stderr).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack trace
    expect(writesAfter).toEqual(writes);
    expect(stateAfter).toBe(state);
  });

  describe("a state file that cannot be used", () => {
    const copyState = (name: string): string => {
      const path = join(w.dir, `${name}.db`);
      copyFileSync(w.statePath, path);
      return path;
    };
    const withState = (path: string): string =>
      w.config(
        (c) => {
          c.state = { path };
        },
        `state-${path.split("/").pop() ?? "x"}.json`,
      );
    /** A sync on the given state file: its output, and whether anything changed. */
    const runOn = async (path: string) => {
      const before = readFileSync(path);
      const writes = w.writes();
      const r = await runCli(["sync", "--config", withState(path), "--job", "gh"], {
        env: w.env,
        cwd: w.dir,
      });
      figures.add({ badInputs: 1 });
      return {
        code: r.code,
        stderr: r.stderr,
        writesUnchanged: JSON.stringify(w.writes()) === JSON.stringify(writes),
        fileUnchanged: readFileSync(path).equals(before),
      };
    };
    const refusal = (code: string, message: RegExp) => ({
      code: 2,
      stderr: expect.stringMatching(
        new RegExp(`error \\[${code}\\]: [^\\n]*${message.source}`, "i"),
      ) as unknown,
      writesUnchanged: true,
      fileUnchanged: true,
    });

    it("refuses a corrupt state file", async () => {
      const path = join(w.dir, "corrupt.db");
      writeFileSync(
        path,
        Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(4096, 0x5a)]),
      );
      expect(await runOn(path)).toMatchObject(
        refusal("state_invalid", /(corrupt|not a database|state)/),
      );
    });

    it("refuses a state file from a newer version", async () => {
      const path = copyState("newer");
      const db = new Database(path);
      db.pragma("user_version = 99");
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.close();
      expect(await runOn(path)).toMatchObject(refusal("state_invalid", /(newer|version|99)/));
    });

    it("refuses a state file locked by another process", async () => {
      const path = copyState("locked");
      const holder = openSqliteStore({ path });
      try {
        expect(await runOn(path)).toMatchObject(refusal("state_locked", /lock/));
      } finally {
        holder.close();
      }
    });
  });

  it("tried at least 40 bad inputs", () => {
    expect(badCases().length + 3).toBeGreaterThanOrEqual(40);
  });
});
