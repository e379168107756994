import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { readConfigFile } from "./load.js";

const ENV = { TINYPM_TOKEN: "tpm-secret", GITHUB_TOKEN: "gh-secret" };

function write(state: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "tps-state-config-"));
  const file = join(dir, "config.json");
  writeFileSync(
    file,
    JSON.stringify({
      tinypm: { baseUrl: "http://127.0.0.1:1/tinypm/api", tokenEnv: "TINYPM_TOKEN" },
      targets: { gh: { type: "github", owner: "acme", repo: "w", tokenEnv: "GITHUB_TOKEN" } },
      jobs: [{ name: "w", tinypmProject: 1, target: "gh", mapping: "mappings/github.yaml" }],
      ...(state === undefined ? {} : { state }),
    }),
  );
  return file;
}

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((i) => `${i.path.join(" > ")}: ${i.message}`);
  }
  throw new Error("expected a ConfigError");
}

describe("the state's place in the config", () => {
  it("defaults to an SQLite file beside the config, or takes state.path", () => {
    const file = write(undefined);
    expect(readConfigFile(file, { env: ENV }).state).toEqual({
      backend: "sqlite",
      path: join(file, "..", ".tinypm-sync", "state.db"),
      display: join(file, "..", ".tinypm-sync", "state.db"),
    });
    expect(readConfigFile(write({ path: "/srv/s.db" }), { env: ENV }).state).toMatchObject({
      backend: "sqlite",
      path: "/srv/s.db",
    });
  });

  it("reads how long a create's confirmation waits for its group, on either backend", () => {
    const env = { ...ENV, TINYPM_SYNC_CONFIRM_WAIT_MS: "250" };
    expect(readConfigFile(write(undefined), { env }).state.confirmWaitMs).toBe(250);
    const pg = write({ url: "postgres://sync@db:5432/tinypm" });
    expect(readConfigFile(pg, { env }).state.confirmWaitMs).toBe(250);
    expect(readConfigFile(write(undefined), { env: ENV }).state.confirmWaitMs).toBeUndefined();
    for (const bad of ["-1", "1s", "600001"]) {
      const found = problems(() =>
        readConfigFile(write(undefined), { env: { ...ENV, TINYPM_SYNC_CONFIRM_WAIT_MS: bad } }),
      );
      expect(found).toEqual([
        `state: environment variable TINYPM_SYNC_CONFIRM_WAIT_MS must be milliseconds from 0 to 600000 (how long a created item's confirmation waits for its group commit), got "${bad}"`,
      ]);
    }
  });

  it("takes a PostgreSQL URL without a password from state.url", () => {
    const loaded = readConfigFile(write({ url: "postgres://sync@db:5432/tinypm" }), { env: ENV });
    expect(loaded.state).toEqual({
      backend: "postgres",
      url: "postgres://sync@db:5432/tinypm",
      display: "postgres://sync@db:5432/tinypm",
    });
  });

  it("refuses a password in state.url, naming the fix, and never echoes it", () => {
    const file = write({ url: "postgres://sync:hunter2@db/tinypm" });
    const found = problems(() => readConfigFile(file, { env: ENV }));
    expect(found).toEqual([
      expect.stringMatching(/^state > url: a password in state\.url is refused/),
    ]);
    expect(found[0]).toMatch(/"urlEnv": "TINYPM_SYNC_STATE_URL"/);
    expect(found.join("\n")).not.toContain("hunter2");
  });

  it("reads the URL from the variable named by state.urlEnv, as a secret shown redacted", () => {
    const env = { ...ENV, STATE_URL: "postgres://sync:s3cret@db/tinypm" };
    const loaded = readConfigFile(write({ urlEnv: "STATE_URL" }), { env });
    expect(loaded.state).toEqual({
      backend: "postgres",
      url: "postgres://sync:s3cret@db/tinypm",
      display: "postgres://sync:***@db/tinypm",
    });
    expect(loaded.statePath).toBe("postgres://sync:***@db/tinypm");
    expect(loaded.secrets).toContain("postgres://sync:s3cret@db/tinypm");
  });

  it("names a missing or wrong urlEnv variable, and refuses two places at once", () => {
    expect(problems(() => readConfigFile(write({ urlEnv: "NOPE" }), { env: ENV }))).toEqual([
      "state > urlEnv: environment variable NOPE is not set (the PostgreSQL state URL); export it before running",
    ]);
    const wrong = problems(() =>
      readConfigFile(write({ urlEnv: "X" }), { env: { ...ENV, X: "mysql://a:pw@h/d" } }),
    );
    expect(wrong).toEqual([
      "state > urlEnv: environment variable X does not hold a postgres:// URL (its value is not shown)",
    ]);
    expect(
      problems(() => readConfigFile(write({ path: "a.db", url: "postgres://h/d" }), { env: ENV })),
    ).toEqual(["state: give one of path (SQLite), url or urlEnv (PostgreSQL), not path and url"]);
    expect(problems(() => readConfigFile(write({ url: "http://h/d" }), { env: ENV }))[0]).toMatch(
      /^state > url: expected a postgres:\/\/ URL/,
    );
  });
});
