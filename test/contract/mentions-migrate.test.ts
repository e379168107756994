/**
 * `mentions: matched` end to end: a tinyPM story and comment with `@alice` (matched) and `@bob`
 * (unmatched) migrate into each sandbox; GitHub gets `@ally` (the matched login) and an inert
 * `@bob`; Jira gets a mention node with alice's accountId and plain `@bob`. A second sync writes
 * nothing either way (no rewrite loop), and tinyPM's text is unchanged.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget, createTinypm, type TargetConnection } from "../../src/adapters/registry.js";
import type { Tracker } from "../../src/core/tracker.js";
import { loadMapping } from "../../src/mapping/load.js";
import { createLanes } from "../../src/gate/lanes.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { sqliteStateOver } from "../../src/state/sqlite-state.js";
import { openSqliteStore, type SqliteStore } from "../../src/state/sqlite-store.js";
import { githubSandboxConnection, jiraSandboxConnection } from "../support/sandbox-connection.js";
import { runEngine, type RunMode } from "../../src/sync/engine.js";

const J = "\u2060";
const TEXT = "Owner @alice, reviewer @bob. Run `@alice` here.";

let tinypm: ReferenceServer;
let jira: JiraSandbox;
let github: GithubSandbox;
let storyId: string;

beforeAll(async () => {
  [tinypm, jira, github] = await Promise.all([
    startReferenceServer({ generate: "stories=0,tasks=0,comments=0", seed: 5 }),
    startJiraSandbox({
      users: [
        { login: "alice", displayName: "Alice Andersson", emailVisible: true },
        { login: "carl", emailVisible: true },
      ],
    }),
    startGithubSandbox({
      rateLimits: "off",
      users: [{ login: "ally", publicEmail: "alice@example.com" }],
    }),
  ]);
  const t = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
  try {
    const story = await t.create({
      kind: "story",
      title: "Mentions",
      description: TEXT,
      status: "PENDING",
      assignees: [],
      labels: [],
    });
    storyId = story.id;
    await t.addComment(
      { kind: "story", id: storyId },
      { author: { login: "alice" }, createdAt: "2026-01-01T10:00:00", body: "thanks @alice" },
    );
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

async function run(kind: "jira" | "github", mode: RunMode, state: SqliteStore) {
  const source = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
  const target: Tracker = createTarget(connection(kind));
  try {
    const report = await runEngine({
      mode,
      job: { name: "m", direction: "both", conflicts: "manual", onDelete: "close" },
      targetSystem: kind,
      tinypm: source,
      target,
      mappingSpec: { ...loadMapping(`mappings/${kind}.yaml`), mentions: "matched" },
      state: sqliteStateOver(state),
      lanes: createLanes({ limits: { tinypm: { concurrency: 2 }, [kind]: { concurrency: 2 } } }),
    });
    const tinypmStory = await source.get({ kind: "story", id: storyId });
    return { report, tinypmStory };
  } finally {
    await Promise.allSettled([source.close(), target.close()]);
  }
}

const statePath = (): string => join(mkdtempSync(join(tmpdir(), "tps-mentions-")), "s.db");

describe("mentions: matched through the sandboxes", () => {
  it("GitHub: the matched login is mentioned, the other stays inert; a second sync writes nothing", async () => {
    const state = openSqliteStore({ path: statePath() });
    try {
      const first = await run("github", "migrate", state);
      expect(first.report.summary.created).toBe(1);
      const [link] = [...state.links("m")];
      const res = await fetch(
        `${github.url}/repos/${github.owner}/${github.repo}/issues/${link?.targetId ?? ""}`,
        {
          headers: { authorization: `token ${github.token}`, "user-agent": "t" },
        },
      );
      const issue = (await res.json()) as { body: string };
      expect(issue.body).toContain(`Owner @ally, reviewer @${J}bob. Run \`@alice\` here.`);
      const comments = await fetch(
        `${github.url}/repos/${github.owner}/${github.repo}/issues/${link?.targetId ?? ""}/comments`,
        {
          headers: { authorization: `token ${github.token}`, "user-agent": "t" },
        },
      );
      expect(((await comments.json()) as { body: string }[])[0]?.body).toMatch(/thanks @ally$/);
      const writes = github.stats().writes;
      const second = await run("github", "sync", state);
      expect(second.report.summary).toMatchObject({
        created: 0,
        updated: 0,
        conflicts: 0,
        failed: 0,
      });
      expect(github.stats().writes).toBe(writes);
      expect(second.tinypmStory?.description).toBe(TEXT);
    } finally {
      state.close();
    }
  });

  it("Jira: a mention node with the accountId; a second sync writes nothing", async () => {
    const state = openSqliteStore({ path: statePath() });
    try {
      const first = await run("jira", "migrate", state);
      expect(first.report.summary.created).toBe(1);
      const [link] = [...state.links("m")];
      const auth = Buffer.from(`${jira.email}:${jira.token}`).toString("base64");
      const res = await fetch(
        `${jira.url}/rest/api/3/issue/${link?.targetId ?? ""}?fields=description`,
        {
          headers: { authorization: `Basic ${auth}` },
        },
      );
      const issue = (await res.json()) as {
        fields: { description: { content: { content: unknown[] }[] } };
      };
      expect(issue.fields.description.content[0]?.content).toEqual([
        { type: "text", text: "Owner " },
        {
          type: "mention",
          attrs: expect.objectContaining({ id: "acc-alice", text: "@Alice Andersson" }) as unknown,
        },
        { type: "text", text: ", reviewer @bob. Run " },
        { type: "text", text: "@alice", marks: [{ type: "code" }] },
        { type: "text", text: " here." },
      ]);
      const writes = jira.stats().writes;
      const second = await run("jira", "sync", state);
      expect(second.report.summary).toMatchObject({
        created: 0,
        updated: 0,
        conflicts: 0,
        failed: 0,
      });
      expect(jira.stats().writes).toBe(writes);
      expect(second.tinypmStory?.description).toBe(TEXT);
    } finally {
      state.close();
    }
  });
});
