import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunSummaryJson } from "../../src/cli/json-output.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `undo` also takes back the milestones, labels and sprints its run created, unless anything
 * else uses them now (a person's issue: kept and listed, exit 4); what existed before the run is
 * never touched. On GitHub with a token that may not delete issues (push, not admin), the
 * issues are closed as not planned and marked undone instead.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=6,tasks=1,comments=1");
  config = writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

interface UndoJson {
  dryRun: boolean;
  summary: { removed: number; kept: number };
  removed: { kind: string; targetId: string; how: string }[];
  kept: { kind: string; reason: string }[];
  containers: {
    removed: { kind: string; id: string; name: string }[];
    kept: { kind: string; id: string; name: string; reason: string }[];
  };
}

const cli = (env: Record<string, string>, ...args: string[]) =>
  runCliProcess([...args, "--config", config, "--log-level", "warn"], {
    env: { ...servers.env, ...env },
  });

/** A GitHub REST call with the admin token (a person's hand). */
async function github(method: string, path: string, body?: unknown): Promise<Response> {
  const { url, owner, repo, token } = servers.github;
  return fetch(`${url}/repos/${owner}/${repo}${path}`, {
    method,
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const names = (list: readonly { kind: string; name: string }[]): string[] =>
  list.map((c) => `${c.kind}:${c.name}`).sort();

describe("undo of a GitHub migration with a token that may not delete issues", () => {
  it("closes and marks the issues, and removes the milestones and labels nothing else uses", async () => {
    const env = { GITHUB_TOKEN: servers.github.writeToken };
    // There before the run: never the run's to remove.
    expect((await github("POST", "/milestones", { title: "Sprint 1" })).status).toBe(201);
    expect((await github("POST", "/labels", { name: "frontend", color: "ededed" })).status).toBe(
      201,
    );
    const migrated = await cli(env, "migrate", "--job", "gh", "--json");
    expect(migrated.code).toBe(0);
    const run = RunSummaryJson.parse(JSON.parse(migrated.stdout));
    expect(run.summary.created).toBe(12);

    // A person's issue now uses a milestone and a label the run created.
    const milestones = (await (await github("GET", "/milestones?state=all")).json()) as {
      number: number;
      title: string;
    }[];
    const sprint2 = milestones.find((m) => m.title === "Sprint 2");
    if (sprint2 === undefined) throw new Error("the run made no Sprint 2");
    const mine = (await (
      await github("POST", "/issues", {
        title: "A person's issue",
        milestone: sprint2.number,
        labels: ["docs"],
      })
    ).json()) as { number: number };

    const writes = servers.github.stats().writes;
    const dry = await cli(env, "undo", "--job", "gh", "--run", run.runId, "--dry-run", "--json");
    expect(dry.code).toBe(4);
    const planned = JSON.parse(dry.stdout) as UndoJson;
    expect(servers.github.stats().writes).toBe(writes);
    expect(planned.summary).toEqual({ removed: 12, kept: 0 });
    expect(planned.removed.every((r) => r.how === "closed")).toBe(true);
    expect(planned.containers.kept).toEqual([
      {
        kind: "iteration",
        id: String(sprint2.number),
        name: "Sprint 2",
        reason: `still used by GitHub #${mine.number}`,
      },
      { kind: "label", id: "docs", name: "docs", reason: `still used by GitHub #${mine.number}` },
    ]);
    const removable = names(planned.containers.removed);
    expect(removable).toEqual(
      expect.arrayContaining(["iteration:Sprint 3", "iteration:Sprint 4", "label:tech-debt"]),
    );
    // What was there before the run is neither removed nor kept: not the run's.
    const all = [...removable, ...names(planned.containers.kept)];
    expect(all).not.toContain("iteration:Sprint 1");
    expect(all).not.toContain("label:frontend");
    expect(all).not.toContain("label:bug");

    const undone = await cli(env, "undo", "--job", "gh", "--run", run.runId, "--json");
    expect(undone.code).toBe(4);
    const result = JSON.parse(undone.stdout) as UndoJson;
    expect(result.removed.map((r) => r.how)).toEqual(result.removed.map(() => "closed"));
    expect(result.containers).toEqual({ ...planned.containers });
    const target = jobTarget(servers, "gh");
    try {
      const closed = await Promise.all(
        result.removed.map((r) => target.get({ kind: r.kind as "story", id: r.targetId })),
      );
      expect(closed.map((i) => [i?.status, i?.marker?.undone])).toEqual(
        result.removed.map(() => ["closed:not_planned", run.runId]),
      );
    } finally {
      await target.close();
    }
    const left = (await (await github("GET", "/milestones?state=all")).json()) as {
      title: string;
    }[];
    expect(left.map((m) => m.title).sort()).toEqual(["Sprint 1", "Sprint 2"]);
    expect((await github("GET", "/labels/docs")).status).toBe(200);
    expect((await github("GET", "/labels/frontend")).status).toBe(200);
    expect((await github("GET", "/labels/tech-debt")).status).toBe(404);
    const person = (await (await github("GET", `/issues/${mine.number}`)).json()) as {
      milestone: { title: string } | null;
      labels: { name: string }[];
    };
    expect([person.milestone?.title, person.labels.map((l) => l.name)]).toEqual([
      "Sprint 2",
      ["docs"],
    ]);

    // Each decided once: a rerun does nothing.
    const again = await cli(env, "undo", "--job", "gh", "--run", run.runId, "--json");
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as UndoJson).containers).toEqual({ removed: [], kept: [] });
  }, 240_000);
});

describe("undo of a Jira migration", () => {
  it("deletes the sprints the run created but one a person's issue is now in", async () => {
    const migrated = await cli({}, "migrate", "--job", "jr", "--json");
    expect(migrated.code).toBe(0);
    const run = RunSummaryJson.parse(JSON.parse(migrated.stdout));
    const target = jobTarget(servers, "jr");
    try {
      const sprints = await target.listIterations();
      const sprint2 = sprints.find((s) => s.name === "Sprint 2");
      if (sprint2 === undefined) throw new Error("the run made no Sprint 2");
      const mine = await target.create({
        kind: "story",
        title: "A person's issue",
        status: "To Do",
        assignees: [],
        labels: [],
        iteration: { id: sprint2.id, name: sprint2.name },
      });

      const undone = await cli({}, "undo", "--job", "jr", "--run", run.runId, "--json");
      expect(undone.code).toBe(4);
      const result = JSON.parse(undone.stdout) as UndoJson;
      expect(result.summary).toEqual({ removed: 12, kept: 0 });
      expect(result.containers.kept).toEqual([
        {
          kind: "iteration",
          id: sprint2.id,
          name: "Sprint 2",
          reason: `still used by Jira ${mine.id}`,
        },
      ]);
      expect(names(result.containers.removed)).toEqual([
        "iteration:Sprint 1",
        "iteration:Sprint 3",
        "iteration:Sprint 4",
      ]);
      expect((await target.listIterations()).map((s) => s.name)).toEqual(["Sprint 2"]);
      expect((await target.get({ kind: "story", id: mine.id }))?.iteration?.name).toBe("Sprint 2");
    } finally {
      await target.close();
    }
  }, 240_000);
});
