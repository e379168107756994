import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { graphql } from "@octokit/graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { ensureBuilt, runCli } from "./cli.js";
import {
  SECRETS,
  startCliWorld,
  startHostileProxy,
  type CliWorld,
  type HostileProxy,
} from "./cli-world.js";

/**
 * Issue 31: one GitHub Project (v2) item whose payload fails validation (a proxy breaking its
 * `fieldValues` in every GraphQL answer) parks that issue with its number and a hint, and the run
 * goes on with everything else (exit 4): on the full read after a migration and on the board's
 * change feed after it. Its values are never read as none (its tinyPM story keeps its own). Once
 * the proxy stops, the next sync picks its board edit up. A board whose page of items cannot be
 * read at all still stops the run.
 */

const MAPPING = fileURLToPath(new URL("../../mappings/github-project.yaml", import.meta.url));
const BOARD = "Widgets board";

interface Report {
  items: {
    action: string;
    reason?: string;
    tinypmId?: string;
    targetId?: string;
    error?: { code: string; message: string };
  }[];
}

/** Breaks, in every GraphQL answer, the project item of issue `number` (its values no list). */
function breakingItem(number: number): (body: string) => string {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const o = node as Record<string, unknown>;
    const content = o.content as { number?: unknown } | null | undefined;
    if (content?.number === number && "fieldValues" in o) o.fieldValues = { nodes: "haunted" };
    for (const v of Object.values(o)) visit(v);
  };
  return (body) => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return body;
    }
    visit(json);
    return JSON.stringify(json);
  };
}

/** Breaks every page of the items query: its item list is no list. */
function breakingPage(body: string): string {
  const json = JSON.parse(body) as { data?: { node?: { items?: { nodes?: unknown } } } };
  const items = json.data?.node?.items;
  if (items !== undefined) items.nodes = "haunted";
  return JSON.stringify(json);
}

describe("a GitHub Project (v2) item whose payload fails validation is parked, the rest goes on", () => {
  let w: CliWorld;
  let proxy: HostileProxy;
  let config = "";
  let gql: typeof graphql;
  let projectId = "";
  /** Issue number by story id. */
  const issueOf = new Map<number, number>();
  let a: { id: number; name: string };
  let b: { id: number; name: string };

  beforeAll(async () => {
    ensureBuilt();
    w = await startCliWorld({ generate: "stories=4,tasks=0,comments=0", viaProxy: false });
    proxy = await startHostileProxy(w.github);
    config = w.config((c) => {
      const gh = (c.targets as Record<string, Record<string, unknown>>).github;
      if (gh === undefined) throw new Error("no github target");
      gh.baseUrl = proxy.url.replace(/\/$/, "");
      gh.project = { owner: w.github.owner, title: BOARD };
      const jobs = c.jobs as Record<string, unknown>[];
      for (const j of jobs) if (j.name === "gh") j.mapping = MAPPING;
    });
    gql = graphql.defaults({
      baseUrl: w.github.url,
      headers: { authorization: `token ${SECRETS.github}` },
    });
    const [first, second] = w.tinypm.store.storiesOf(1);
    if (first === undefined || second === undefined) throw new Error("too few stories");
    a = { id: first.id, name: first.name };
    b = { id: second.id, name: second.name };
  });
  afterAll(async () => {
    await proxy.close();
    await w.close();
  });

  async function run(command: "migrate" | "sync") {
    const out = join(w.dir, `report-${command}-${Date.now().toString(36)}.json`);
    const r = await runCli(
      [command, "--config", config, "--job", "gh", "--json", "--format", "json", "--out", out],
      { env: w.env, cwd: w.dir },
    );
    const last = r.stdout.trim().split("\n").at(-1);
    const line = last === undefined || last === "" ? "{}" : last;
    const summary = (JSON.parse(line) as { summary?: Record<string, number> }).summary ?? {};
    let items: Report["items"] = [];
    try {
      items = (JSON.parse(readFileSync(out, "utf8")) as Report).items;
    } catch {
      // a run stopped before its report
    }
    return { code: r.code, stderr: r.stderr, stdout: r.stdout, summary, items };
  }

  function parked() {
    const state = openSqliteStore({ path: w.statePath });
    try {
      return state.failures("gh").map((f) => [f.side, f.targetId, f.code]);
    } finally {
      state.close();
    }
  }

  /** A person sets an issue's Estimate on the board (straight to GitHub, not through the proxy). */
  async function setEstimate(story: number, estimate: number): Promise<void> {
    const r = await gql<{
      node: {
        field: { id: string };
        items: { nodes: { id: string; content: { number: number } | null }[] };
      };
    }>(
      `query($p: ID!) { node(id: $p) { ... on ProjectV2 {
        field(name: "Estimate") { ... on ProjectV2FieldCommon { id } }
        items(first: 100) { nodes { id content { ... on Issue { number } } } } } } }`,
      { p: projectId },
    );
    const item = r.node.items.nodes.find((n) => n.content?.number === issueOf.get(story));
    if (item === undefined) throw new Error(`story ${String(story)} is not on the board`);
    await gql(
      `mutation($p: ID!, $i: ID!, $f: ID!, $v: ProjectV2FieldValue!) { updateProjectV2ItemFieldValue(input: {
        projectId: $p, itemId: $i, fieldId: $f, value: $v }) { projectV2Item { id } } }`,
      { p: projectId, i: item.id, f: r.node.field.id, v: { number: estimate } },
    );
  }

  const estimateOf = (story: number): number | undefined =>
    w.tinypm.store.storiesOf(1).find((s) => s.id === story)?.estimatedEffort;

  it("migrate puts every story on the board", async () => {
    const r = await run("migrate");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    const found = await gql<{
      organization: { projectsV2: { nodes: { id: string; title: string }[] } };
    }>(
      `query($o: String!) { organization(login: $o) { projectsV2(first: 10) { nodes { id title } } } }`,
      {
        o: w.github.owner,
      },
    );
    projectId = found.organization.projectsV2.nodes.find((p) => p.title === BOARD)?.id ?? "";
    const issues = (await (
      await fetch(
        `${w.github.url}/repos/${w.github.owner}/${w.github.repo}/issues?state=all&per_page=100`,
        { headers: { authorization: `Bearer ${SECRETS.github}` } },
      )
    ).json()) as { number: number; title: string }[];
    for (const s of w.tinypm.store.storiesOf(1)) {
      const issue = issues.find((i) => i.title === s.name);
      if (issue !== undefined) issueOf.set(s.id, issue.number);
    }
    expect(projectId).not.toBe("");
    expect(issueOf.size).toBe(4);
  });

  it("sync (the full read): the broken item's issue parked with its number and a hint, the other edit lands", async () => {
    await setEstimate(a.id, 13);
    await setEstimate(b.id, 21);
    const before = estimateOf(a.id);
    proxy.set({ route: /graphql/, rewrite: breakingItem(issueOf.get(a.id) ?? 0) });
    const r = await run("sync");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 4 });
    expect(r.summary).toMatchObject({ failed: 1, updated: 1, deleted: 0 });
    const number = String(issueOf.get(a.id));
    expect(r.items.filter((i) => i.action === "failed")).toEqual([
      expect.objectContaining({
        tinypmId: String(a.id),
        targetId: number,
        reason: "unreadable on GitHub",
        error: {
          code: "payload_invalid",
          message: expect.stringMatching(
            new RegExp(
              `^GitHub issue #${number} .*cannot be read \\(projectV2\\.items\\): issue #${number}'s project item: fieldValues > nodes.*tinyPM story ${String(a.id)} and its link are left as they are.*Open it on the project board and set its fields again`,
            ),
          ) as unknown,
        },
      }),
    ]);
    expect(estimateOf(b.id)).toBe(21);
    expect(estimateOf(a.id)).toBe(before);
    expect(parked()).toEqual([["target", number, "payload_invalid"]]);
  });

  it("sync (the board's feed): still parked although its issue did not change, nothing else written", async () => {
    const before = estimateOf(a.id);
    const r = await run("sync");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 4 });
    expect(r.summary).toMatchObject({ failed: 1, updated: 0, created: 0, deleted: 0 });
    expect(estimateOf(a.id)).toBe(before);
    expect(parked()).toEqual([["target", String(issueOf.get(a.id)), "payload_invalid"]]);
  });

  it("a page of items that cannot be read at all stops the run: exit 3, payload_invalid, nothing written", async () => {
    await setEstimate(b.id, 34);
    proxy.set({ route: /graphql/, rewrite: breakingPage });
    const r = await run("sync");
    expect(r.code).toBe(3);
    expect(r.stderr + r.stdout).toMatch(/projectV2\.items/);
    expect(estimateOf(b.id)).toBe(21);
  });

  it("sync once it reads: the parked board edit lands once, nothing parked, the next sync is quiet", async () => {
    proxy.set(undefined);
    const r = await run("sync");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.summary).toMatchObject({ failed: 0, updated: 2, deleted: 0 });
    expect(estimateOf(a.id)).toBe(13);
    expect(estimateOf(b.id)).toBe(34);
    expect(parked()).toEqual([]);
    const quiet = await run("sync");
    expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, deleted: 0 });
  });
});
