import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { paintedLines, PTY_AVAILABLE, runUnderPty as runPty } from "./pty.js";
import { runCliProcess } from "./spawn.js";

let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=12,tasks=1,comments=0");
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

/** Runs the built CLI under a real pseudo-terminal (util-linux `script`); stdout and stderr share it. */
function runUnderPty(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return runPty(args, servers.env);
}

describe.runIf(PTY_AVAILABLE)("progress on a terminal", () => {
  it("repaints one progress line below the logs, clears it, then prints the summary", async () => {
    const config = writeConfig(tmp.dir, servers, { file: "pty.json" });
    const r = await runUnderPty(["migrate", "--config", config, "--job", "gh"]);
    expect(r.code).toBe(0);
    const painted = paintedLines(r.output);
    // Repainted in place (carriage return + erase line), with the bar, percentage and phase.
    expect(painted.length).toBeGreaterThan(2);
    expect(painted.some((p) => /^\[[█░]{20}\] +\d+% · /.test(p))).toBe(true);
    expect(
      painted.some((p) => p.startsWith("reading tinyPM") || p.includes("· reading tinyPM")),
    ).toBe(true);
    expect(painted.some((p) => /creating stories · \d+\/\d+ items/.test(p))).toBe(true);
    // Logs are for people on a terminal, and never glued to the progress line.
    expect(r.output).toMatch(/\d\d:\d\d:\d\d INFO +.*run finished/);
    expect(r.output).not.toMatch(/ETA [^\r\n]*\d\d:\d\d:\d\d INFO/);
    // The progress line is cleared before the summary, which ends the output.
    const last = r.output.lastIndexOf("\r\x1b[2K");
    expect(r.output.slice(last).startsWith("\r\x1b[2K")).toBe(true);
    expect(
      r.output
        .slice(last + 5)
        .trimStart()
        .startsWith("["),
    ).toBe(false);
    expect(r.output.slice(last)).toContain("Totals:");
  });

  it("nothing of the progress display leaks when the output is not a terminal", async () => {
    const config = writeConfig(tmp.dir, servers, { file: "pipe.json" });
    const r = await runCliProcess(["plan", "--config", config, "--job", "gh", "--migrate"], {
      env: servers.env,
    });
    expect(r.code).toBe(0);
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain("\x1b[2K");
      expect(text).not.toContain("\r");
      expect(text).not.toMatch(/[█░]/);
    }
    expect(r.stdout).toContain("Totals:");
  });
});
