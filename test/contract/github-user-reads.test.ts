/**
 * GitHub charges one read per user profile: the matching reads profiles only for the assignees
 * the user map and the login rule left unmatched, and none when every tinyPM user is matched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget } from "../../src/adapters/registry.js";
import type { UserRef } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { parseUserMap } from "../../src/mapping/users.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { readAndMatchUsers } from "../../src/sync/read/user-read.js";
import { countingGate } from "../support/counting-gate.js";

const tinypmUsers: UserRef[] = ["alice", "bob", "carol"].map((login, i) => ({
  id: String(i + 1),
  login,
  name: `${login[0]?.toUpperCase() ?? ""}${login.slice(1)} Tester`,
  email: `${login}@example.com`,
}));

let github: GithubSandbox;
let target: Tracker;
/** The target's request gate: its counters are the reads the tests count. */
const gate = countingGate("github");

beforeAll(async () => {
  github = await startGithubSandbox({
    rateLimits: "off",
    users: [
      "alice",
      { login: "bob" },
      { login: "cc-gh", publicEmail: "carol@example.com" },
      { login: "zed", name: "Zed Zero" },
      { login: "yan" },
    ],
  });
  target = createTarget({
    type: "github",
    tokenEnv: "GITHUB_TOKEN",
    importApi: false,
    baseUrl: github.url,
    owner: github.owner,
    repo: github.repo,
    token: github.token,
    gate,
  });
});
afterAll(async () => {
  await target.close();
  await github.close();
});

async function readsFor(users: readonly UserRef[], map?: string) {
  const before = gate.counters().reads;
  const out = await readAndMatchUsers({
    tinypmUsers: users,
    target,
    userMap: map === undefined ? undefined : parseUserMap(map, "users.yaml"),
    read: (_name, run) => run({}),
  });
  return { ...out, reads: gate.counters().reads - before };
}

describe("GitHub user profile reads", () => {
  it("reads no profile when the logins match every tinyPM user", async () => {
    const r = await readsFor(tinypmUsers.slice(0, 2));
    expect(r.result.matches.map((m) => [m.tinypm.login, m.target.id, m.how])).toEqual([
      ["alice", "alice", "login"],
      ["bob", "bob", "login"],
    ]);
    expect(r.described).toBe(0);
    expect(r.reads).toBe(1); // the assignees listing only
  });

  it("reads no profile when the user map covers the rest", async () => {
    const r = await readsFor(tinypmUsers, "users:\n  carol: cc-gh\n");
    expect(r.result.unmapped).toEqual([]);
    expect(r.reads).toBe(1);
  });

  it("reads the profiles of the unmatched assignees only, and matches by public email", async () => {
    const r = await readsFor(tinypmUsers);
    // alice and bob matched by login: cc-gh, zed and yan are read (one read each), plus the listing.
    expect(r.described).toBe(3);
    expect(r.reads).toBe(1 + 3);
    expect(r.result.matches.find((m) => m.tinypm.login === "carol")).toMatchObject({
      target: { id: "cc-gh", email: "carol@example.com" },
      how: "email",
    });
    expect(r.targetUsers.find((u) => u.id === "zed")?.name).toBe("Zed Zero");
    expect(r.targetUsers.find((u) => u.id === "alice")?.name).toBeUndefined();
  });
});
