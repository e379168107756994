import { readFileSync, readdirSync } from "node:fs";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildProgram } from "../../src/cli/program.js";
import type { CliContext } from "../../src/cli/context.js";
import { ConfigSchema } from "../../src/config/schema.js";

const root = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), "utf8");

async function buildTestProgram(): Promise<Command> {
  const sink = { write: () => true } as unknown as CliContext["stdout"];
  const ctx: CliContext = {
    stdout: sink,
    stderr: sink,
    env: {},
    cwd: ".",
    signal: new AbortController().signal,
    waitForStop: () => new Promise(() => undefined),
    exitCode: 0,
  };
  return buildProgram(ctx);
}

/** Built once (with every command loaded) and only read by the checks below. */
const built = await buildTestProgram();
const program = (): Command => built;

/** Every `tinypm-sync <command> …` invocation written in a text, split into words. */
function invocations(text: string): string[][] {
  const out: string[][] = [];
  for (const m of text.matchAll(/tinypm-sync (?:[a-z-]+)(?: [^\n`|#>]*)?/g)) {
    out.push(m[0].trim().split(/\s+/).slice(1));
  }
  return out;
}

const DOCS = [
  "README.md",
  "docs/commands.md",
  "docs/scheduling.md",
  ...readdirSync(new URL("docs/examples/", root)).map((f) => `docs/examples/${f}`),
];

describe("the docs and examples against the code", () => {
  const cli = program();
  const commands = new Map(cli.commands.map((c) => [c.name(), c]));

  it.each(DOCS)("%s names only real commands and flags", (path) => {
    const text = read(path)
      .replaceAll("main.js", "tinypm-sync")
      .replace(/dist\/cli\/tinypm-sync/g, "tinypm-sync");
    for (const words of invocations(text)) {
      const [name, ...rest] = words;
      if (name === undefined || name === "demo," || !/^[a-z-]+$/.test(name)) continue;
      const cmd = commands.get(name);
      if (cmd === undefined && !rest.some((w) => w.startsWith("-"))) continue; // prose
      expect(cmd, `${path}: tinypm-sync ${words.join(" ")}`).toBeDefined();
      if (cmd === undefined) continue;
      const sub = cmd.commands.find((c) => c.name() === rest[0]);
      const flags = new Set(
        [...(sub ?? cmd).options, ...cmd.options].flatMap((o) => [o.long, o.short]),
      );
      for (const word of rest) {
        const flag = /^(--?[a-z][a-z-]*)/.exec(word)?.[1];
        if (flag === undefined || flag === "--help" || flag === "-h") continue;
        expect(flags.has(flag), `${path}: ${flag} in tinypm-sync ${words.join(" ")}`).toBe(true);
      }
    }
  });

  it("config.example.json is a valid config referencing the generated schema", () => {
    const example = JSON.parse(read("config.example.json")) as { $schema?: string };
    expect(example.$schema).toBe("./schemas/config.schema.json");
    expect(ConfigSchema.safeParse(example).success).toBe(true);
  });

  it("the GitHub Actions example is a scheduled workflow running sync and saving the state", () => {
    const wf = parse(read("docs/examples/github-actions-sync.yml")) as {
      on: { schedule: { cron: string }[] };
      jobs: { sync: { steps: { run?: string; if?: string; uses?: string }[] } };
    };
    expect(wf.on.schedule[0]?.cron).toMatch(/^(\S+ ){4}\S+$/);
    const steps = wf.jobs.sync.steps;
    expect(steps.some((s) => s.run?.includes("tinypm-sync sync --config"))).toBe(true);
    expect(steps.find((s) => s.uses?.startsWith("actions/cache/save"))?.if).toBe("always()");
  });

  it("the crontab line has five time fields and runs sync", () => {
    const line = read("docs/examples/crontab")
      .split("\n")
      .find((l) => l.trim() !== "" && !l.startsWith("#"));
    expect(line).toMatch(/^(\S+ ){5}cd \S+ && .* sync --config \S+/);
  });

  it("docs/errors.md has one entry per error code", () => {
    const errors = read("docs/errors.md");
    const union = /export type ErrorCode =([^;]*);/.exec(read("src/core/errors.ts"))?.[1] ?? "";
    const codes = [...union.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(errors).toContain(`## \`${code}\``);
  });
});
