import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { graphql } from "@octokit/graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeBoardConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `plan` shows a GitHub Project (v2) board's changes like any other field's (a text row and a
 * `--json` change each way), its write estimate counts the board's GraphQL writes, and `verify`
 * compares the board's fields.
 */
let servers: Servers;
let config: string;
let gql: typeof graphql;
const tmp = tempDir();
const TITLE = "Plan board";

beforeAll(async () => {
  servers = await startServers("stories=3");
  const dir = join(tmp.dir, "w");
  mkdirSync(dir);
  const file = writeBoardConfig(dir, servers, { owner: servers.github.owner, title: TITLE });
  config = file;
  gql = graphql.defaults({
    baseUrl: servers.github.url,
    headers: { authorization: `token ${servers.github.token}` },
  });
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--job", "gp", "--config", config, "--log-level", "warn"], {
    env: servers.env,
  });

interface PlanJson {
  estimatedWrites?: Record<string, number>;
  items: {
    action: string;
    kind: string;
    tinypmId?: string;
    targetId?: string;
    changes: { field: string; side?: string; from?: unknown; to?: unknown }[];
  }[];
}

/** The board's project, the item of issue `number`, and the id of field `name`. */
async function boardItem(
  number: number,
  name: string,
): Promise<{ project: string; item: string; field: string }> {
  const r = await gql<{
    organization: {
      projectsV2: {
        nodes: {
          id: string;
          title: string;
          field: { id: string };
          items: { nodes: { id: string; content: { number: number } }[] };
        }[];
      };
    };
  }>(
    `query($o: String!, $n: String!) { organization(login: $o) { projectsV2(first: 10) { nodes { id title
      field(name: $n) { ... on ProjectV2FieldCommon { id } }
      items(first: 100) { nodes { id content { ... on Issue { number } } } } } } } }`,
    { o: servers.github.owner, n: name },
  );
  const p = r.organization.projectsV2.nodes.find((x) => x.title === TITLE);
  const item = p?.items.nodes.find((i) => i.content.number === number);
  if (p === undefined || item === undefined)
    throw new Error(`issue #${number} is not on the board`);
  return { project: p.id, item: item.id, field: p.field.id };
}

const githubWrites = (): number => servers.github.stats().writes;

describe("plan and verify with a GitHub Project (v2) board", () => {
  it("a migration's estimate counts each issue's board writes (add to the project, set values)", async () => {
    const plan = await cli("plan", "--migrate", "--json");
    expect(plan.code).toBe(0);
    const planned = JSON.parse(plan.stdout) as PlanJson;
    const creates = planned.items.filter((i) => i.action === "create").length;
    expect(creates).toBe(3);
    const estimated = planned.estimatedWrites?.github ?? 0;
    const before = githubWrites();
    expect((await cli("migrate")).code).toBe(0);
    const made = githubWrites() - before;
    // Each issue: its create, its addProjectV2ItemById and its values; the project, its fields
    // and iterations are set up once on top (not estimated: the plan does not read the board).
    expect(estimated).toBeGreaterThanOrEqual(creates * 3);
    expect(estimated).toBeLessThanOrEqual(made);
  });

  it("a board edit: a plan row and a --json change to tinyPM; verify names the field", async () => {
    const at = await boardItem(1, "Estimate");
    await gql(
      `mutation($i: UpdateProjectV2ItemFieldValueInput!) { updateProjectV2ItemFieldValue(input: $i) { clientMutationId } }`,
      { i: { projectId: at.project, itemId: at.item, fieldId: at.field, value: { number: 21 } } },
    );
    const verify = await cli("verify", "--json");
    expect(verify.code).toBe(4);
    const found = JSON.parse(verify.stdout) as {
      differences: {
        tinypmId: string;
        fields: { field: string; tinypm: unknown; target: unknown }[];
      }[];
    };
    expect(found.differences).toEqual([
      expect.objectContaining({
        tinypmId: "1",
        fields: [{ field: "estimate", tinypm: expect.anything() as unknown, target: 21 }],
      }),
    ]);
    const plan = await cli("plan", "--json");
    const planned = JSON.parse(plan.stdout) as PlanJson;
    const updates = planned.items.filter((i) => i.action === "update");
    expect(updates).toHaveLength(1);
    expect(updates[0]?.changes).toContainEqual(
      expect.objectContaining({ field: "estimate", toSide: "tinypm", to: 21 }),
    );
    const text = await cli("plan");
    expect(text.stdout).toMatch(/^ +estimate → tinyPM: .* → 21$/m);
    expect((await cli("sync")).code).toBe(0);
    expect((await cli("verify")).code).toBe(0);
  });

  it("a tinyPM edit of a board field: a change to GitHub, estimated as the writes sync makes", async () => {
    const store = servers.tinypm.store;
    // A story of the backlog or an open iteration: a sync reads those every time.
    const open = (iterationId: number | undefined): boolean => {
      const it = iterationId === undefined ? undefined : store.iteration(iterationId);
      return it === undefined || Date.parse(it.startDate) + it.duration * 86_400_000 > Date.now();
    };
    const story = store.storiesOf(1).find((s) => open(s.iterationId));
    if (story === undefined) throw new Error("no open story");
    const { id, ...rest } = story;
    store.replaceStory(id, { ...rest, estimatedEffort: 34 });
    const plan = await cli("plan", "--json");
    const planned = JSON.parse(plan.stdout) as PlanJson;
    const update = planned.items.find((i) => i.action === "update" && i.tinypmId === String(id));
    expect(update?.changes).toContainEqual(
      expect.objectContaining({ field: "estimate", toSide: "target", to: 34 }),
    );
    const text = await cli("plan");
    expect(text.stdout).toMatch(/^ +estimate → GitHub: .* → 34$/m);
    const before = githubWrites();
    expect((await cli("sync")).code).toBe(0);
    // The issue's own update and the board's values: the estimate is what sync wrote.
    expect(planned.estimatedWrites?.github).toBe(githubWrites() - before);
    expect((await cli("verify")).code).toBe(0);
  });
});
