import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportSchema } from "../../src/report/schema.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=2,tasks=1,comments=1");
  config = writeConfig(tmp.dir, servers);
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

/** Replaces what changes from run to run: run ids, times, durations, ports, temp paths. */
function normalise(text: string): string {
  return text
    .replaceAll(tmp.dir, "<tmp>")
    .replace(/\d{8}T\d{6}Z-[0-9a-f]{6,8}|dry-[0-9a-z]+/g, "<run-id>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
    .replace(/\(\d+ (ms|s)\)/g, "(<duration>)")
    .replace(/"durationMs": ?\d+/g, '"durationMs": 0');
}

const plan = (format: string) =>
  runCliProcess(["plan", "--config", config, "--job", "gh", "--migrate", "--format", format], {
    env: servers.env,
  });

describe("plan's duration estimate", () => {
  it("names the time the writes would take at GitHub's published limits and the binding limit", async () => {
    const paced = writeConfig(tmp.dir, servers, { file: "paced.json", paced: true });
    const r = await runCliProcess(["plan", "--config", paced, "--job", "gh", "--migrate"], {
      env: servers.env,
    });
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/Writes this would make: .*GitHub \d+ writes/);
    expect(r.stdout).toContain(
      "Time the writes would take: under a minute, bound by GitHub's 80 content writes per minute",
    );
    // A quick migration gets no import API hint.
    expect(r.stdout).not.toContain("import API");
    const json = await runCliProcess(
      ["plan", "--config", paced, "--job", "gh", "--migrate", "--format", "json"],
      { env: servers.env },
    );
    const report = JSON.parse(json.stdout) as { estimatedDuration?: { boundBy: string } };
    expect(report.estimatedDuration?.boundBy).toBe("GitHub's 80 content writes per minute");
  });

  it("a long GitHub migration suggests the import API; a sync plan does not", async () => {
    const file = writeConfig(tmp.dir, servers, { file: "slow.json" });
    const slow = JSON.parse(readFileSync(file, "utf8")) as {
      targets: { github: { limits: Record<string, number> } };
    };
    slow.targets.github.limits = { writesPerMinute: 1 };
    writeFileSync(file, JSON.stringify(slow));
    const r = await runCliProcess(["plan", "--config", file, "--job", "gh", "--migrate"], {
      env: servers.env,
    });
    expect(r.stdout).toMatch(
      /Time the writes would take: about 1\d min, bound by GitHub's 1 content writes per minute/,
    );
    expect(r.stdout).toContain(
      "Hint: GitHub's issue import API sends each issue with its comments in one request",
    );
    const sync = await runCliProcess(["plan", "--config", file, "--job", "gh"], {
      env: servers.env,
    });
    expect(sync.stdout).toContain("Time the writes would take:");
    expect(sync.stdout).not.toContain("import API");
  });
});

describe("plan --format", () => {
  it("text", async () => {
    const r = await plan("text");
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toContain("description → GitHub, word diff:");
    expect(normalise(r.stdout)).toMatchSnapshot();
  });

  it("markdown", async () => {
    const r = await plan("markdown");
    expect(r).toMatchObject({ code: 0 });
    expect(normalise(r.stdout)).toMatchSnapshot();
  });

  it("json fits schemas/report.schema.json", async () => {
    const r = await plan("json");
    expect(r).toMatchObject({ code: 0 });
    const report: unknown = JSON.parse(r.stdout);
    expect(reportSchema.safeParse(report).success).toBe(true);
    // Every description a create writes shows its word diff: all of its text added (issue 21).
    const items = (report as { items: { action: string; descriptions?: unknown[] }[] }).items;
    const creates = items.filter((i) => i.action === "create" && i.descriptions !== undefined);
    expect(creates.length).toBeGreaterThan(0);
    for (const item of creates)
      expect(item.descriptions).toEqual([
        { toSide: "target", diff: [{ op: "added", text: expect.any(String) as string }] },
      ]);
    expect(normalise(JSON.stringify(report, null, 2))).toMatchSnapshot();
  });

  it("html is one self-contained page", async () => {
    const r = await plan("html");
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/^<!doctype html>/i);
    expect(r.stdout).not.toMatch(/<script[^>]+src=|<link[^>]+href=["']https?:/i);
    // The page's body only: its style sheet belongs to the report renderer's own tests.
    expect(normalise(/<body>[\s\S]*<\/body>/.exec(r.stdout)?.[0] ?? "")).toMatchSnapshot();
  });

  it("a dry run writes nothing: the state stays empty", async () => {
    const r = await runCliProcess(["status", "--config", config, "--json"], { env: servers.env });
    const status = JSON.parse(r.stdout) as { jobs: { links: number; lastRuns: unknown[] }[] };
    expect(status.jobs.every((j) => j.links === 0 && j.lastRuns.length === 0)).toBe(true);
    expect(servers.github.stats()).toMatchObject({ writes: 0 });
  });
});
