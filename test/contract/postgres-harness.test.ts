import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The harness as plain ESM under node_modules/.cache (Node 20 runs no TypeScript; `pg` resolves). */
function transpileHarness(): { url: string; cleanup: () => void } {
  const out = join(root, "node_modules", ".cache", `tinypm-pg-harness-${process.pid}`);
  mkdirSync(out, { recursive: true });
  const source = readFileSync(join(root, "test", "support", "postgres-server.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(join(out, "postgres-server.js"), outputText);
  copyFileSync(
    join(root, "test", "support", "postgres-watchdog.mjs"),
    join(out, "postgres-watchdog.mjs"),
  );
  return {
    url: new URL(`file://${join(out, "postgres-server.js")}`).href,
    cleanup: () => {
      rmSync(out, { recursive: true, force: true });
    },
  };
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => {
      done(false);
    });
  });
}

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(postgresSkipReason !== undefined)(
  `the test PostgreSQL server${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("starts on a loopback port, gives each caller its own database, and leaves nothing when stopped", async () => {
      const server = await startPostgres();
      try {
        const a = await server.createDatabase("file_a");
        const b = await server.createDatabase("file_b");
        const client = new pg.Client({ connectionString: a });
        await client.connect();
        await client.query("CREATE TABLE t (x int)");
        await client.end();
        const other = new pg.Client({ connectionString: b });
        await other.connect();
        const { rows } = await other.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_tables WHERE tablename = 't'",
        );
        await other.end();
        expect(rows[0]?.n).toBe("0");
        const wrong = new pg.Client({ connectionString: a.replace(server.password, "wrong") });
        await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
        await wrong.end().catch(() => undefined);
      } finally {
        await server.stop();
      }
      expect(existsSync(server.folder)).toBe(false);
      expect(await portOpen(server.port)).toBe(false);
    });

    it("pauses and restarts on the same port (a partition from the database)", async () => {
      const server = await startPostgres();
      try {
        const url = await server.createDatabase("partition");
        await server.pause();
        expect(await portOpen(server.port)).toBe(false);
        await server.start();
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        expect((await client.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one).toBe(1);
        await client.end();
      } finally {
        await server.stop();
      }
    });

    it("is stopped and removed by its watchdog when the test process is killed outright", async () => {
      const harness = transpileHarness();
      const code = `const { startPostgres } = await import(${JSON.stringify(harness.url)});
        const s = await startPostgres();
        console.log(JSON.stringify({ folder: s.folder, port: s.port }));
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"],
      });
      const line = await new Promise<string>((done, fail) => {
        let text = "";
        child.stdout.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes("\n")) done(text.split("\n")[0] ?? "");
        });
        child.once("exit", (c) => {
          fail(new Error(`child exited early (${String(c)})`));
        });
      });
      const { folder, port } = JSON.parse(line) as { folder: string; port: number };
      expect(await portOpen(port)).toBe(true);
      child.kill("SIGKILL");
      try {
        await until(async () => !existsSync(folder) && !(await portOpen(port)), "the watchdog");
      } finally {
        harness.cleanup();
      }
    });
  },
);
