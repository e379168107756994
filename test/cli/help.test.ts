import { describe, expect, it } from "vitest";
import { runCliProcess } from "./spawn.js";

/** Every command and the flags its --help must name. */
const COMMANDS: readonly (readonly [string[], string[]])[] = [
  [["demo"], ["--target", "--keep", "--stories"]],
  [["check"], ["--config", "--offline"]],
  [["export"], ["--config", "--job", "--out", "--log-level", "--log-format"]],
  [["plan"], ["--config", "--job", "--format", "--out", "--migrate", "--log-format", "--verbose"]],
  [["migrate"], ["--config", "--job", "--dry-run", "--json", "--format", "--out", "--log-level"]],
  [
    ["sync"],
    [
      "--config",
      "--job",
      "--dry-run",
      "--watch",
      "--interval",
      "--json",
      "--format",
      "--log-format",
    ],
  ],
  [["status"], ["--config", "--json"]],
  [["conflicts"], ["list", "resolve"]],
  [
    ["conflicts", "list"],
    ["--config", "--json"],
  ],
  [
    ["conflicts", "resolve"],
    ["--take", "--config", "<id>"],
  ],
  [["state"], ["migrate"]],
  [
    ["state", "migrate"],
    ["--from", "--to", "--overwrite", "--json"],
  ],
  [["users"], ["--config", "--job", "--json", "--write", "--log-level"]],
  [
    ["reference-server"],
    [
      "--host",
      "--port",
      "--token",
      "--generate",
      "--dataset",
      "--seed",
      "--api-version",
      "--faults",
    ],
  ],
  [
    ["sandbox"],
    ["--host", "--port", "--token", "--rate-limits", "--time-scale", "--faults", "--users"],
  ],
];

describe("every command's --help", () => {
  it.concurrent.each(COMMANDS)("%j --help exits 0 and names its flags", async (cmd, flags) => {
    const r = await runCliProcess([...cmd, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: tinypm-sync ${cmd.join(" ")}`);
    for (const flag of flags) expect(r.stdout).toContain(flag);
    expect(r.stderr).toBe("");
  });

  it("the top-level help lists every command", async () => {
    const r = await runCliProcess(["--help"]);
    expect(r.code).toBe(0);
    for (const [cmd] of COMMANDS) expect(r.stdout).toContain(cmd[0]);
  });
});
