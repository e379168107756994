import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { graphql } from "@octokit/graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAPPINGS, startServers, tempDir, writeBoardConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * A board and milestones together (`project.milestones: true`): a migration gives each issue its
 * story's iteration as the board's Iteration (same dates) and as its milestone, and both follow
 * an iteration change made in tinyPM.
 */
let servers: Servers;
let config: string;
let gql: typeof graphql;
const tmp = tempDir();
const TITLE = "Both board";

beforeAll(async () => {
  servers = await startServers("stories=8,tasks=0,comments=0");
  const dir = join(tmp.dir, "w");
  mkdirSync(dir);
  const mapping = join(dir, "github-project-milestones.yaml");
  const yaml = readFileSync(join(MAPPINGS, "github-project.yaml"), "utf8")
    .replace("$schema: ../schemas/mapping.schema.json\n", "")
    .replace(/^project:\n/m, "project:\n  milestones: true\n");
  if (!yaml.includes("  milestones: true\n")) throw new Error("the mapping has no project section");
  writeFileSync(mapping, yaml);
  const file = writeBoardConfig(
    dir,
    servers,
    { owner: servers.github.owner, title: TITLE },
    mapping,
  );
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

interface Row {
  milestone?: string | undefined;
  iteration?: { title: string; startDate: string; duration: number } | undefined;
}

/** Issue number → its milestone's title and its board item's iteration. */
async function issues(): Promise<Map<number, Row>> {
  const r = await gql<{
    organization: {
      projectsV2: {
        nodes: {
          title: string;
          items: {
            nodes: {
              content: { number: number; milestone: { title: string } | null };
              fieldValues: {
                nodes: {
                  title?: string;
                  startDate?: string;
                  duration?: number;
                  field?: { name: string };
                }[];
              };
            }[];
          };
        }[];
      };
    };
  }>(
    `query($o: String!) { organization(login: $o) { projectsV2(first: 10) { nodes { title
      items(first: 100) { nodes { content { ... on Issue { number milestone { title } } }
        fieldValues(first: 20) { nodes { ... on ProjectV2ItemFieldIterationValue { title startDate duration
          field { ... on ProjectV2FieldCommon { name } } } } } } } } } } }`,
    { o: servers.github.owner },
  );
  const p = r.organization.projectsV2.nodes.find((x) => x.title === TITLE);
  if (p === undefined) throw new Error("no board");
  const out = new Map<number, Row>();
  for (const n of p.items.nodes) {
    const v = n.fieldValues.nodes.find((x) => x.field?.name === "Iteration");
    out.set(n.content.number, {
      milestone: n.content.milestone?.title,
      iteration:
        v?.title === undefined
          ? undefined
          : { title: v.title, startDate: v.startDate ?? "", duration: v.duration ?? 0 },
    });
  }
  return out;
}

/** The issue number of each story, from the markers' order: the migrated issues' bodies. */
async function issueOfStory(): Promise<Map<number, number>> {
  const r = await fetch(
    `${servers.github.url}/repos/${servers.github.owner}/${servers.github.repo}/issues?state=all&per_page=100`,
    { headers: { authorization: `token ${servers.github.token}`, "user-agent": "test" } },
  );
  const list = (await r.json()) as { number: number; body: string | null }[];
  const out = new Map<number, number>();
  for (const i of list) {
    const m =
      /"originId":\s*"(\d+)"/.exec(i.body ?? "") ?? /originId[^0-9]+(\d+)/.exec(i.body ?? "");
    if (m?.[1] !== undefined) out.set(Number(m[1]), i.number);
  }
  return out;
}

describe("a board and milestones on one job", () => {
  it("migrate sets both; both follow an iteration change in tinyPM", async () => {
    expect((await cli("migrate")).code).toBe(0);
    const store = servers.tinypm.store;
    const numbers = await issueOfStory();
    const stories = store.storiesOf(1);
    expect(numbers.size).toBe(stories.length);
    let rows = await issues();
    let withIteration = 0;
    for (const s of stories) {
      const row = rows.get(numbers.get(s.id) ?? -1);
      const it = s.iterationId === undefined ? undefined : store.iteration(s.iterationId);
      expect(row?.milestone, `story ${s.id}'s milestone`).toBe(it?.name);
      expect(row?.iteration, `story ${s.id}'s board iteration`).toEqual(
        it === undefined
          ? undefined
          : { title: it.name, startDate: it.startDate, duration: it.duration },
      );
      if (it !== undefined) withIteration++;
    }
    expect(withIteration).toBeGreaterThan(0);

    // A story of the backlog or an open iteration (a sync reads those every time) moves to
    // another open iteration.
    const open = store
      .iterationsOf(1)
      .filter((it) => Date.parse(it.startDate) + it.duration * 86_400_000 > Date.now());
    const isOpen = (id: number | undefined): boolean =>
      id === undefined || open.some((it) => it.id === id);
    const story = stories.find((s) => isOpen(s.iterationId));
    if (story === undefined) throw new Error("no story in an open section");
    const next = open.find((it) => it.id !== story.iterationId);
    if (next === undefined) throw new Error("no other open iteration");
    const { id, ...rest } = story;
    store.replaceStory(id, { ...rest, iterationId: next.id });
    const sync = await cli("sync");
    expect(sync.code).toBe(0);
    rows = await issues();
    expect(rows.get(numbers.get(id) ?? -1)).toEqual({
      milestone: next.name,
      iteration: { title: next.name, startDate: next.startDate, duration: next.duration },
    });
    expect((await cli("verify")).code).toBe(0);
  });
});
