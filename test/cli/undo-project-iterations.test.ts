import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { graphql } from "@octokit/graphql";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunSummaryJson } from "../../src/cli/json-output.js";
import { startServers, tempDir, writeBoardConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `undo` of a migration onto a GitHub Project (v2) board takes back the iterations the run added
 * to the board's iteration field unless an item it does not undo uses one (kept and listed, exit
 * 4). Removing one rewrites the field, which gives every iteration a new id and clears every
 * item's value: each other item's value is set back. An iteration there before the run stays.
 */
let servers: Servers;
let config: string;
let gql: typeof graphql;
const tmp = tempDir();
const TITLE = "Undo board";
let world = 0;

// Each test its own servers and state.
beforeEach(async () => {
  servers = await startServers("stories=6,tasks=1,comments=1");
  const dir = join(tmp.dir, String(++world));
  mkdirSync(dir);
  const file = writeBoardConfig(dir, servers, { owner: servers.github.owner, title: TITLE });
  config = file;
  gql = graphql.defaults({
    baseUrl: servers.github.url,
    headers: { authorization: `token ${servers.github.token}` },
  });
}, 60_000);
afterEach(async () => {
  await servers.close();
});
afterAll(() => {
  tmp.cleanup();
});

interface UndoJson {
  summary: { removed: number; kept: number };
  containers: {
    removed: { kind: string; id: string; name: string }[];
    kept: { kind: string; id: string; name: string; reason: string }[];
  };
}
interface Iter {
  id: string;
  title: string;
  startDate: string;
  duration: number;
}
interface Board {
  fieldId: string;
  iterations: Iter[];
  /** Issue number → the title and id of its item's iteration value. */
  values: Map<number, { title: string; id: string } | undefined>;
}

async function projectOf(): Promise<string> {
  const r = await gql<{ organization: { projectsV2: { nodes: { id: string; title: string }[] } } }>(
    `query($o: String!) { organization(login: $o) { projectsV2(first: 10) { nodes { id title } } } }`,
    { o: servers.github.owner },
  );
  const p = r.organization.projectsV2.nodes.find((n) => n.title === TITLE);
  if (p === undefined) throw new Error(`the migration made no project "${TITLE}"`);
  return p.id;
}

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config, "--log-level", "warn"], { env: servers.env });

async function readBoard(project: string): Promise<Board> {
  const r = await gql<{
    node: {
      field: {
        id: string;
        configuration: { iterations: Iter[]; completedIterations: Iter[] };
      };
      items: {
        nodes: {
          content: { number: number };
          fieldValues: {
            nodes: { iterationId?: string; title?: string; field?: { name: string } }[];
          };
        }[];
      };
    };
  }>(
    `query($p: ID!) { node(id: $p) { ... on ProjectV2 {
      field(name: "Iteration") { ... on ProjectV2IterationField { id configuration {
        iterations { id title startDate duration } completedIterations { id title startDate duration } } } }
      items(first: 100) { nodes { content { ... on Issue { number } }
        fieldValues(first: 20) { nodes { ... on ProjectV2ItemFieldIterationValue { iterationId title
          field { ... on ProjectV2FieldCommon { name } } } } } } } } } }`,
    { p: project },
  );
  const values = new Map<number, { title: string; id: string } | undefined>();
  for (const n of r.node.items.nodes) {
    const v = n.fieldValues.nodes.find((x) => x.field?.name === "Iteration" && x.iterationId);
    values.set(
      n.content.number,
      v === undefined ? undefined : { title: v.title ?? "", id: v.iterationId ?? "" },
    );
  }
  const c = r.node.field.configuration;
  return {
    fieldId: r.node.field.id,
    iterations: [...c.completedIterations, ...c.iterations],
    values,
  };
}

/** A person's issue on the board, in the iteration of that title. */
async function personsIssue(project: string, title: string, iteration: string): Promise<number> {
  const { url, owner, repo, token } = servers.github;
  const res = await fetch(`${url}/repos/${owner}/${repo}/issues`, {
    method: "POST",
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  const issue = (await res.json()) as { number: number; node_id: string };
  const added = await gql<{ addProjectV2ItemById: { item: { id: string } } }>(
    `mutation($p: ID!, $c: ID!) { addProjectV2ItemById(input: { projectId: $p, contentId: $c }) { item { id } } }`,
    { p: project, c: issue.node_id },
  );
  const board = await readBoard(project);
  const it = board.iterations.find((i) => i.title === iteration);
  if (it === undefined) throw new Error(`no iteration "${iteration}" on the board`);
  await gql(
    `mutation($p: ID!, $i: ID!, $f: ID!, $v: ProjectV2FieldValue!) { updateProjectV2ItemFieldValue(input: {
      projectId: $p, itemId: $i, fieldId: $f, value: $v }) { projectV2Item { id } } }`,
    {
      p: project,
      i: added.addProjectV2ItemById.item.id,
      f: board.fieldId,
      v: { iterationId: it.id },
    },
  );
  return issue.number;
}

/** The iterations of a list (the labels the run created go too, as the other undo tests show). */
const iterations = (list: readonly { kind: string; name: string }[]): string[] =>
  list
    .filter((c) => c.kind === "iteration")
    .map((c) => c.name)
    .sort();

describe("undo of a migration onto a GitHub Project (v2) board", () => {
  it("removes the iterations the run added that nothing else uses, and sets every other value back", async () => {
    // There before the run, with a person's issue in it: never the run's to remove.
    const owner = await gql<{ organization: { id: string } }>(
      `query($o: String!) { organization(login: $o) { id } }`,
      { o: servers.github.owner },
    );
    const made = await gql<{ createProjectV2: { projectV2: { id: string } } }>(
      `mutation($o: ID!, $t: String!) { createProjectV2(input: { ownerId: $o, title: $t }) { projectV2 { id } } }`,
      { o: owner.organization.id, t: TITLE },
    );
    const project = made.createProjectV2.projectV2.id;
    await gql(
      `mutation($p: ID!) { createProjectV2Field(input: { projectId: $p, name: "Iteration", dataType: ITERATION,
        iterationConfiguration: { startDate: "2020-01-06", duration: 14,
          iterations: [{ title: "Hardening", startDate: "2020-01-06", duration: 14 }] } }) {
        projectV2Field { ... on ProjectV2FieldCommon { id } } } }`,
      { p: project },
    );
    const early = await personsIssue(project, "A person's hardening issue", "Hardening");

    const migrated = await cli("migrate", "--job", "gp", "--json");
    expect(migrated.code).toBe(0);
    const run = RunSummaryJson.parse(JSON.parse(migrated.stdout));
    const added = (await readBoard(project)).iterations
      .map((i) => i.title)
      .filter((t) => t !== "Hardening")
      .sort();
    expect(added).toContain("Sprint 2");
    expect(added.length).toBeGreaterThan(1);

    // A person's issue now uses an iteration the run added.
    const mine = await personsIssue(project, "A person's issue", "Sprint 2");

    const writes = servers.github.stats().writes;
    const dry = await cli("undo", "--job", "gp", "--run", run.runId, "--dry-run", "--json");
    expect(dry.code).toBe(4);
    expect(servers.github.stats().writes).toBe(writes);
    const planned = JSON.parse(dry.stdout) as UndoJson;
    expect(planned.containers.kept).toEqual([
      {
        kind: "iteration",
        id: "Sprint 2",
        name: "Sprint 2",
        reason: `still used by GitHub #${mine}`,
      },
    ]);
    const gone = added.filter((t) => t !== "Sprint 2");
    expect(iterations(planned.containers.removed)).toEqual(gone);

    const undone = await cli("undo", "--job", "gp", "--run", run.runId, "--json");
    expect(undone.code).toBe(4);
    const result = JSON.parse(undone.stdout) as UndoJson;
    expect(result.summary.removed).toBe(run.summary.created);
    expect(result.containers).toEqual(planned.containers);

    const after = await readBoard(project);
    expect(after.iterations.map((i) => i.title).sort()).toEqual(["Hardening", "Sprint 2"]);
    // Each person's item keeps its value, pointing at the rewritten field's iteration.
    const idOf = (t: string): string | undefined => after.iterations.find((i) => i.title === t)?.id;
    expect(after.values.get(mine)).toEqual({ title: "Sprint 2", id: idOf("Sprint 2") });
    expect(after.values.get(early)).toEqual({ title: "Hardening", id: idOf("Hardening") });
    expect([...after.values.keys()].sort((a, b) => a - b)).toEqual([early, mine]);

    // Each decided once: a rerun does nothing.
    const again = await cli("undo", "--job", "gp", "--run", run.runId, "--json");
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as UndoJson).containers).toEqual({ removed: [], kept: [] });
  }, 240_000);

  it("removes every iteration of a field the run created, the first (made with the field) too", async () => {
    const migrated = await cli("migrate", "--job", "gp", "--json");
    expect(migrated.code).toBe(0);
    const run = RunSummaryJson.parse(JSON.parse(migrated.stdout));
    const project = await projectOf();
    const added = (await readBoard(project)).iterations.map((i) => i.title).sort();
    expect(added.length).toBeGreaterThan(1);

    const undone = await cli("undo", "--job", "gp", "--run", run.runId, "--json");
    expect(undone.code).toBe(0);
    const result = JSON.parse(undone.stdout) as UndoJson;
    expect(iterations(result.containers.removed)).toEqual(added);
    expect(result.containers.kept).toEqual([]);
    const after = await readBoard(project);
    expect(after.iterations).toEqual([]);
    expect(after.values.size).toBe(0);
  }, 240_000);
});
