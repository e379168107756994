import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokensEqual } from "../../src/server-kit/tokens.js";
import { ensureBuilt, runCli, type CliResult } from "./cli.js";
import { SECRETS, startCliWorld, type CliWorld } from "./cli-world.js";
import { createFigures } from "./figures.js";

const figures = createFigures("secrets");
/** Job commands log at trace level (check, status, conflicts and demo have no log flags). */
const TRACE = ["--log-level", "trace", "--verbose"];

/** Every place a secret could leak to, collected while the commands run. */
interface Haystack {
  readonly name: string;
  readonly bytes: Buffer;
}

describe("secrets never leave the environment", () => {
  let w: CliWorld;
  const hay: Haystack[] = [];
  const results: { args: string[]; result: CliResult }[] = [];

  const run = async (args: string[], env?: Record<string, string>): Promise<CliResult> => {
    const result = await runCli(args, { env: env ?? w.env, cwd: w.dir });
    results.push({ args, result });
    hay.push({ name: `stdout of ${args.join(" ")}`, bytes: Buffer.from(result.stdout) });
    hay.push({ name: `stderr of ${args.join(" ")}`, bytes: Buffer.from(result.stderr) });
    return result;
  };

  beforeAll(async () => {
    ensureBuilt();
    w = await startCliWorld({ viaProxy: false });
    const cfg = w.config();
    const out = (name: string): string => join(w.dir, name);
    await run(["check", "--config", cfg]);
    await run(["export", "--config", cfg, "--job", "gh", "--out", out("export.json"), ...TRACE]);
    for (const format of ["text", "json", "markdown", "html"]) {
      await run([
        "plan",
        "--config",
        cfg,
        "--job",
        "gh",
        "--format",
        format,
        "--out",
        out(`plan.${format}`),
        ...TRACE,
      ]);
    }
    await run([
      "migrate",
      "--config",
      cfg,
      "--job",
      "gh",
      "--format",
      "html",
      "--out",
      out("migrate.html"),
      ...TRACE,
    ]);
    await run(["migrate", "--config", cfg, "--job", "jr", "--json", ...TRACE]);
    await run(["sync", "--config", cfg, "--format", "markdown", "--out", out("sync.md"), ...TRACE]);
    await run(["sync", "--config", cfg, "--job", "gh", "--json", ...TRACE]);
    await run(["status", "--config", cfg, "--json"]);
    await run(["status", "--config", cfg]);
    await run(["conflicts", "list", "--config", cfg]);
    await run(["conflicts", "list", "--config", cfg, "--json"]);
    // Failing ones: wrong tokens on each system (the right ones are still in other variables).
    await run(["sync", "--config", cfg, "--job", "gh", ...TRACE], {
      ...w.env,
      GITHUB_TOKEN: `${SECRETS.github}x`,
    });
    await run(["sync", "--config", cfg, "--job", "jr", ...TRACE], {
      ...w.env,
      JIRA_TOKEN: `${SECRETS.jira}x`,
    });
    await run(["sync", "--config", cfg, "--job", "gh", ...TRACE], {
      ...w.env,
      TINYPM_TOKEN: `${SECRETS.tinypm}x`,
    });
    await run(["check", "--config", cfg], { ...w.env, JIRA_TOKEN: `${SECRETS.jira}x` });
    await run(["demo"]);
    for (const name of readdirSync(w.dir)) {
      if (
        /\.(json|html|md|text|markdown|db|db-wal|db-shm)$/.test(name) &&
        !name.startsWith("config")
      ) {
        hay.push({ name, bytes: readFileSync(join(w.dir, name)) });
      }
    }
  }, 300_000);
  afterAll(async () => {
    figures.add({ secretScans: hay.length });
    figures.save();
    await w.close();
  });

  it("ran the whole suite's worth of commands, the good ones successfully", () => {
    const failed = results
      .filter((x) => x.result.code !== 0)
      .map(
        (x) =>
          `${x.args.slice(0, 6).join(" ")} → ${x.result.code}: ${x.result.stderr.split("\n").find((l) => l.startsWith("error")) ?? ""}`,
      );
    expect(results.length).toBeGreaterThanOrEqual(18);
    // The four runs with a wrong token: refused, naming the variable, not its value.
    expect(failed).toHaveLength(4);
    for (const f of failed) expect(f).toMatch(/→ 3: (error \[auth_failed\]|$)/);
    expect(hay.some((h) => h.name === "state.db")).toBe(true);
    expect(hay.some((h) => h.name === "plan.html")).toBe(true);
  });

  it.each(Object.entries(SECRETS))("the %s token occurs nowhere", (_system, secret) => {
    const leaks = hay
      .filter(
        (h) =>
          h.bytes.includes(Buffer.from(secret)) ||
          h.bytes.includes(Buffer.from(secret.slice(4, 20))),
      )
      .map((h) => h.name);
    expect(leaks).toEqual([]);
  });

  it.each([
    ["the reference server", "src/reference-server/handler.ts"],
    ["the GitHub sandbox", "src/sandboxes/github/app.ts"],
    ["the Jira sandbox", "src/sandboxes/jira/server.ts"],
  ])("%s compares tokens in constant time (tokensEqual)", (_name, file) => {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
    expect(source).toMatch(/import \{ tokensEqual \} from "[./]+\/server-kit\/tokens\.js"/);
    expect(source).toMatch(/tokensEqual\(/);
    expect(source).not.toMatch(/[!=]==\s*(state|deps|t)\.token\b|\.token\s*[!=]==/);
    expect(tokensEqual(SECRETS.tinypm, SECRETS.tinypm)).toBe(true);
    expect(tokensEqual(`${SECRETS.tinypm}x`, SECRETS.tinypm)).toBe(false);
    expect(tokensEqual(undefined, "")).toBe(false);
  });
});
