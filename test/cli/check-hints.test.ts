import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { editConfig, eventually, startServe } from "./serve-support.js";
import { runCliProcess } from "./spawn.js";

// A failed GitHub probe keeps the hint of the error it maps: `check` tells the user what to do.
let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=1");
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

/** The `check` line of the GitHub job, with the config's repository replaced by `repo`. */
async function githubLine(env: Record<string, string>, repo?: string): Promise<string> {
  const file = writeConfig(tmp.dir, servers, { file: `config-${repo ?? "bad-token"}.json` });
  if (repo !== undefined) {
    const cfg = JSON.parse(readFileSync(file, "utf8")) as {
      targets: { github: Record<string, unknown> };
    };
    cfg.targets.github.repo = repo;
    writeFileSync(file, JSON.stringify(cfg, null, 2));
  }
  const r = await runCliProcess(["check", "--config", join(file)], { env });
  expect(r.code).toBe(3);
  expect(r.stdout).toMatch(/^ok +job gh: tinyPM/m);
  return /^FAIL job gh: github: .*$/m.exec(r.stdout)?.[0] ?? "";
}

describe("check: a failed GitHub probe says what to do", () => {
  it("a rejected token: auth_failed, the variable, and the hint to check the token", async () => {
    const line = await githubLine({ ...servers.env, GITHUB_TOKEN: "not-the-token" });
    expect(line).toContain("[auth_failed]");
    expect(line).toContain("401");
    expect(line).toContain(
      "— hint: Check the token in GITHUB_TOKEN: it may be expired, revoked or mistyped.",
    );
    expect(line).not.toContain("not-the-token");
  });

  it("a repository that does not exist: not_found and the hint to check owner and repo", async () => {
    const line = await githubLine(servers.env, "no-such-repo");
    expect(line).toContain("[not_found]");
    expect(line).toContain(`repository ${servers.github.owner}/no-such-repo`);
    expect(line).toMatch(/ — hint: Check owner, repo/);
  });
});

describe("serve: readiness names what to do about a system that refuses", () => {
  it("a rejected GitHub token keeps /readyz at 503 with the error's hint in the reason", async () => {
    const file = writeConfig(tmp.dir, servers, { file: "config-serve.json" });
    editConfig(file, (c) => {
      c.jobs = c.jobs.filter((j) => j.name === "gh");
    });
    const served = await startServe(file, { ...servers.env, GITHUB_TOKEN: "not-the-token" });
    try {
      const reasons = await eventually(async () => {
        const res = await fetch(`${served.url}/readyz`);
        const body = (await res.json()) as { reasons?: string[] };
        const github = body.reasons?.find((r) => r.startsWith("job gh: github"));
        return res.status === 503 && github?.includes("401") === true ? body.reasons : undefined;
      }, "a probed, refused GitHub in /readyz");
      const github = reasons.find((r) => r.startsWith("job gh: github")) ?? "";
      expect(github).toContain(
        "— hint: Check the token in GITHUB_TOKEN: it may be expired, revoked or mistyped.",
      );
      expect(github).not.toContain("not-the-token");
    } finally {
      served.proc.kill("SIGTERM");
      await served.proc.done;
    }
  });
});
