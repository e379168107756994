/**
 * Assignees that actually arrive: a migration into each sandbox whose users have visible, hidden
 * and ambiguous emails (or names). Visible equal emails are assigned; hidden ones only through the
 * user map (and reported unmatched without it); an ambiguous user is never guessed; a user who
 * cannot be assigned is never sent (the sandboxes would refuse it: Jira 400, GitHub 422).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget, createTinypm, type TargetConnection } from "../../src/adapters/registry.js";
import type { UserRef, WorkItem } from "../../src/core/model.js";
import { loadMapping } from "../../src/mapping/load.js";
import { parseUserMap, type UnmappedPolicy } from "../../src/mapping/users.js";
import { createLanes } from "../../src/gate/lanes.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { sqliteStateOver } from "../../src/state/sqlite-state.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { githubSandboxConnection, jiraSandboxConnection } from "../support/sandbox-connection.js";
import { runEngine, type RunReport } from "../../src/sync/engine.js";

// tinyPM (generated): alice, bob, carol, dave, erin, frank (inactive), all <login>@example.com.
const JIRA_USERS = [
  { login: "alice", emailVisible: true },
  { login: "bob", emailVisible: false },
  { login: "carol", emailVisible: true },
  { login: "carol2", email: "carol@example.com", emailVisible: true },
  { login: "dave", emailVisible: true, assignable: false },
  { login: "erin", emailVisible: true },
  { login: "frank", emailVisible: false },
];
const GITHUB_USERS = [
  { login: "ally", publicEmail: "alice@example.com" },
  { login: "bobby" },
  { login: "carol-a", name: "Carol Nuñez" },
  { login: "carol-b", name: "Carol Nuñez" },
  { login: "dave", collaborator: false },
  { login: "erin" },
];

let tinypm: ReferenceServer;
let jira: JiraSandbox;
let github: GithubSandbox;
let items: WorkItem[];

beforeAll(async () => {
  [tinypm, jira, github] = await Promise.all([
    startReferenceServer({ generate: "stories=8,tasks=2,comments=0", seed: 5 }),
    startJiraSandbox({ users: JIRA_USERS }),
    startGithubSandbox({ users: GITHUB_USERS }),
  ]);
  const t = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
  try {
    items = [];
    for await (const item of t.list({})) items.push(item);
  } finally {
    await t.close();
  }
});
afterAll(async () => {
  await Promise.allSettled([tinypm.close(), jira.close(), github.close()]);
});

function connection(kind: "jira" | "github"): TargetConnection {
  return kind === "jira" ? jiraSandboxConnection(jira) : githubSandboxConnection(github);
}

async function migrate(
  kind: "jira" | "github",
  userMap?: string,
  policy?: UnmappedPolicy,
): Promise<{ report: RunReport; assignees: Map<string, string[]> }> {
  (kind === "jira" ? jira : github).reset();
  const state = openSqliteStore({ path: join(mkdtempSync(join(tmpdir(), "tps-users-")), "s.db") });
  const source = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
  const target = createTarget(connection(kind));
  try {
    const report = await runEngine({
      mode: "migrate",
      job: { name: "people", direction: "to-target", conflicts: "manual", onDelete: "close" },
      targetSystem: kind,
      tinypm: source,
      target,
      mappingSpec: loadMapping(`mappings/${kind}.yaml`),
      userMap: userMap === undefined ? undefined : parseUserMap(userMap, "users.yaml"),
      unmappedUsers: policy,
      state: sqliteStateOver(state),
      lanes: createLanes({ limits: { tinypm: { concurrency: 4 }, [kind]: { concurrency: 4 } } }),
    });
    const assignees = new Map<string, string[]>();
    for (const link of state.links("people")) {
      const copy = await target.get({ kind: link.kind, id: link.targetId });
      assignees.set(
        `${link.kind}:${link.tinypmId}`,
        (copy?.assignees ?? []).map((u) => u.id ?? "?"),
      );
    }
    return { report, assignees };
  } finally {
    state.close();
    await Promise.allSettled([source.close(), target.close()]);
  }
}

/** What each item's copy must hold: the mapped assignees, in order (Jira keeps the first). */
function expected(map: Record<string, string>, kind: "jira" | "github"): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const item of items) {
    const ids = item.assignees.flatMap((u: UserRef) => {
      const id = u.login === undefined ? undefined : map[u.login];
      return id === undefined ? [] : [id];
    });
    out.set(`${item.kind}:${item.id}`, kind === "jira" ? ids.slice(0, 1) : [...ids].sort());
  }
  return out;
}

const sorted = (m: Map<string, string[]>) => new Map([...m].map(([k, v]) => [k, [...v].sort()]));
const assignedTo = (login: string) =>
  items.filter((i) => i.assignees.some((u) => u.login === login));

describe("a migration into Jira", () => {
  it("assigns visible equal emails, reports hidden and ambiguous users unmatched, sends no one else", async () => {
    expect(assignedTo("bob").length).toBeGreaterThan(0);
    expect(assignedTo("carol").length).toBeGreaterThan(0);
    const { report, assignees } = await migrate("jira");
    expect(report.summary.failed).toBe(0);
    const map = { alice: "acc-alice", erin: "acc-erin" };
    expect(assignees).toEqual(expected(map, "jira"));
    expect([...assignees.values()].flat()).toContain("acc-alice");
    expect(report.users.matches.map((m) => [m.tinypm.login, m.target.id, m.how])).toEqual([
      ["alice", "acc-alice", "email"],
      ["erin", "acc-erin", "email"],
    ]);
    expect(report.users.unmapped.map((u) => u.login)).toEqual(["bob", "carol", "dave", "frank"]);
    expect(report.users.assigneeLoss.items).toBeGreaterThan(0);
    expect(Object.keys(report.users.assigneeLoss.byUser)).toContain("bob");
  });

  it("assigns a hidden-email user through the user map, and never sends a non-assignable one", async () => {
    const { report, assignees } = await migrate(
      "jira",
      "users:\n  bob: acc-bob\n  dave: acc-dave\n",
    );
    expect(report.summary.failed).toBe(0); // acc-dave would have been a 400
    expect(assignees).toEqual(
      expected({ alice: "acc-alice", erin: "acc-erin", bob: "acc-bob" }, "jira"),
    );
    expect([...assignees.values()].flat()).toContain("acc-bob");
    expect([...assignees.values()].flat()).not.toContain("acc-dave");
    expect([...assignees.values()].flat()).not.toContain("acc-carol2");
  });

  it("stops before the first write under policy fail", async () => {
    await expect(migrate("jira", undefined, "fail")).rejects.toThrow(
      /Stopped before writing anything: \d+ items? lose an assignee on jira \(user policy fail\): .*bob/,
    );
    expect(jira.stats().writes).toBe(0);
  });
});

describe("a migration into GitHub", () => {
  it("assigns by public email and login, never guesses between two same-named users", async () => {
    const { report, assignees } = await migrate("github");
    expect(report.summary.failed).toBe(0);
    expect(sorted(assignees)).toEqual(expected({ alice: "ally", erin: "erin" }, "github"));
    expect([...assignees.values()].flat()).toContain("ally");
    expect(report.users.matches.map((m) => [m.tinypm.login, m.target.id, m.how])).toEqual([
      ["alice", "ally", "email"],
      ["erin", "erin", "login"],
    ]);
    expect(report.users.unmapped.map((u) => u.login)).toEqual(["bob", "carol", "dave", "frank"]);
  });

  it("assigns through the user map; a non-collaborator in the map is never sent", async () => {
    const { report, assignees } = await migrate("github", "users:\n  bob: bobby\n  dave: dave\n");
    expect(report.summary.failed).toBe(0); // dave would have been a 422
    expect(sorted(assignees)).toEqual(
      expected({ alice: "ally", erin: "erin", bob: "bobby" }, "github"),
    );
  });
});

describe("a sync under policy fail after a migration under skip", () => {
  it("stops only for the assignees it would send, not for those the last sync left behind", async () => {
    github.reset();
    const path = join(mkdtempSync(join(tmpdir(), "tps-users-")), "s.db");
    const run = async (mode: "migrate" | "sync", policy: UnmappedPolicy): Promise<RunReport> => {
      const state = openSqliteStore({ path });
      const source = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
      const target = createTarget(connection("github"));
      try {
        return await runEngine({
          mode,
          job: { name: "people", direction: "to-target", conflicts: "manual", onDelete: "close" },
          targetSystem: "github",
          tinypm: source,
          target,
          mappingSpec: loadMapping("mappings/github.yaml"),
          unmappedUsers: policy,
          state: sqliteStateOver(state),
          lanes: createLanes({
            limits: { tinypm: { concurrency: 4 }, github: { concurrency: 4 } },
          }),
        });
      } finally {
        state.close();
        await Promise.allSettled([source.close(), target.close()]);
      }
    };
    const migrated = await run("migrate", "skip");
    expect(migrated.users.assigneeLoss.byUser.bob).toBeGreaterThan(0);
    // A story assigned only to people GitHub has: the sync sends it, and no one is lost.
    const mapped = items.find(
      (i) =>
        i.kind === "story" &&
        i.assignees.length > 0 &&
        i.assignees.every((u) => u.login === "alice" || u.login === "erin"),
    );
    expect(mapped).toBeDefined();
    const source = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
    try {
      await source.update(
        { kind: "story", id: mapped?.id ?? "" },
        { set: { title: "Renamed in tinyPM" } },
      );
    } finally {
      await source.close();
    }
    const synced = await run("sync", "fail");
    expect(synced.users.assigneeLoss).toEqual({ policy: "fail", items: 0, byUser: {} });
    expect(synced.summary).toMatchObject({ updated: 1, failed: 0 });
  });
});
