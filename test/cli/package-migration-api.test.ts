import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";

// A migration rehearsed, applied, checked and taken back through the BUILT package
// (`import … from "tinypm-sync"`, as package-api.test.ts resolves it): savePlan, applyPlan,
// verifyJob, undoRun.
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=2,tasks=1,comments=0");
  mkdirSync(join(tmp.dir, "node_modules"));
  symlinkSync(ROOT, join(tmp.dir, "node_modules", "tinypm-sync"), "dir");
  writeFileSync(join(tmp.dir, "package.json"), '{ "type": "module", "private": true }\n');
  writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const SCRIPT = `
import { applyPlan, loadConfig, savePlan, undoRun, verifyJob, PlanStaleError } from "tinypm-sync";
const config = loadConfig("config.json");
const out = {};
const saved = await savePlan(config, "gh", "plan.json", { migrate: true });
out.saved = { actions: saved.plan.actions.length, dryRun: saved.run.dryRun };
const applied = await applyPlan(config, "plan.json");
out.applied = { kind: applied.kind, created: applied.run.summary.created };
out.again = (await applyPlan(config, "plan.json")).kind;
out.verify = (await verifyJob(config, "gh")).summary;
const dry = await undoRun(config, "gh", applied.run.runId, { dryRun: true });
out.undoDry = dry.summary;
out.undo = (await undoRun(config, "gh", applied.run.runId)).summary;
out.undoAgain = (await undoRun(config, "gh", applied.run.runId)).summary;
out.staleIsError = typeof PlanStaleError === "function";
console.log(JSON.stringify(out));
`;

describe("the package's migration API", () => {
  it("saves a plan, applies it once, verifies and undoes the run, printing nothing", async () => {
    writeFileSync(join(tmp.dir, "use.mjs"), SCRIPT);
    const env = { PATH: process.env.PATH ?? "", ...servers.env };
    const { stdout, stderr } = await run(process.execPath, ["use.mjs"], { cwd: tmp.dir, env });
    expect(stderr).toBe("");
    expect(JSON.parse(stdout)).toEqual({
      saved: { actions: 4, dryRun: true },
      applied: { kind: "applied", created: 4 },
      again: "already-applied",
      verify: { pairs: 4, equal: 4, different: 0, unlinked: 0 },
      undoDry: { removed: 4, kept: 0 },
      undo: { removed: 4, kept: 0 },
      undoAgain: { removed: 0, kept: 0 },
      staleIsError: true,
    });
    // The plan file holds no secret.
    expect(readFileSync(join(tmp.dir, "plan.json"), "utf8")).not.toContain(
      servers.env.GITHUB_TOKEN,
    );
  }, 180_000);
});
