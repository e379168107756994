import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCliProcess } from "./spawn.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

describe("the command-line skeleton", () => {
  it("prints the version with --version and exits 0", async () => {
    const r = await runCliProcess(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("prints help with --help and exits 0", async () => {
    const r = await runCliProcess(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: tinypm-sync");
  });

  it("rejects an unknown command with exit 2 and names the valid ones", async () => {
    const r = await runCliProcess(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: unknown command 'frobnicate'/);
    expect(r.stderr).toContain("Valid commands:");
  });

  it("rejects an unknown flag with exit 2 and names the valid ones", async () => {
    const r = await runCliProcess(["--frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: unknown option '--frobnicate'/);
    expect(r.stderr).toContain("--version");
  });

  it("names the valid subcommands and flags at the level of the mistake", async () => {
    const sub = await runCliProcess(["conflicts", "frob"]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("Valid commands for conflicts: list, resolve.");
    const flag = await runCliProcess(["conflicts", "list", "--config", "x.json", "--frob"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(
      /Valid options for list: --config, --json, --log-level, --log-format, --verbose, --help\./,
    );
  });
});
