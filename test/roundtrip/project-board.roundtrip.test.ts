import { graphql } from "@octokit/graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Iteration, WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { startWorld, storyLinks, type World } from "./world.js";

/**
 * tinyPM ⇄ a GitHub Project (v2) board: a migration puts every story on the board with its
 * status, iteration (same dates), estimate and priority; board edits and tinyPM edits flow both
 * ways; another tool's rewrite of the iteration field is repaired without touching tinyPM; a quiet
 * sync reads the board in pages of 100 and writes nothing.
 */

const STATUS: Record<string, string> = { PENDING: "Todo", ACCEPTED: "Done", REJECTED: "Won't do" };
const PRIORITY: Record<string, string> = {
  MUST_HAVE: "Must have",
  SHOULD_HAVE: "Should have",
  COULD_HAVE: "Could have",
  WONT_HAVE: "Won't have",
};

interface BoardRow {
  itemId: string;
  number: number;
  status?: string | undefined;
  priority?: string | undefined;
  estimate?: number | undefined;
  iteration?: { id: string; title: string; startDate: string; duration: number } | undefined;
}

describe("GitHub Project (v2) board round trip", () => {
  let world: World;
  let tinypm: Tracker;
  let gql: typeof graphql;
  let projectId: string;
  let iterations: readonly Iteration[];

  const board = async (): Promise<Map<number, BoardRow>> => {
    const out = new Map<number, BoardRow>();
    let cursor: string | null = null;
    do {
      const r: Page = await gql<Page>(
        `query($p: ID!, $c: String) { node(id: $p) { ... on ProjectV2 { items(first: 100, after: $c) {
          pageInfo { hasNextPage endCursor } nodes { id content { ... on Issue { number } }
          fieldValues(first: 20) { nodes { __typename
            ... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2FieldCommon { name } } }
            ... on ProjectV2ItemFieldSingleSelectValue { name field { ... on ProjectV2FieldCommon { name } } }
            ... on ProjectV2ItemFieldIterationValue { iterationId title startDate duration field { ... on ProjectV2FieldCommon { name } } } } } } } } } }`,
        { p: projectId, c: cursor },
      );
      for (const n of r.node.items.nodes) {
        const row: BoardRow = { itemId: n.id, number: n.content.number };
        for (const v of n.fieldValues.nodes) {
          if (v.field?.name === "Status") row.status = v.name;
          if (v.field?.name === "Priority") row.priority = v.name;
          if (v.field?.name === "Estimate") row.estimate = v.number;
          if (v.field?.name === "Iteration" && v.iterationId !== undefined)
            row.iteration = {
              id: v.iterationId,
              title: v.title ?? "",
              startDate: v.startDate ?? "",
              duration: v.duration ?? 0,
            };
        }
        out.set(row.number, row);
      }
      cursor = r.node.items.pageInfo.hasNextPage ? r.node.items.pageInfo.endCursor : null;
    } while (cursor !== null);
    return out;
  };
  const fieldId = async (
    name: string,
  ): Promise<{ id: string; options?: { id: string; name: string }[] }> => {
    const r = await gql<{
      node: { field: { id: string; options?: { id: string; name: string }[] } };
    }>(
      `query($p: ID!, $n: String!) { node(id: $p) { ... on ProjectV2 { field(name: $n) {
        ... on ProjectV2FieldCommon { id } ... on ProjectV2SingleSelectField { options { id name } } } } } }`,
      { p: projectId, n: name },
    );
    return r.node.field;
  };
  const setValue = async (
    itemId: string,
    field: string,
    value: Record<string, unknown>,
  ): Promise<void> => {
    await gql(
      `mutation($p: ID!, $i: ID!, $f: ID!, $v: ProjectV2FieldValue!) { updateProjectV2ItemFieldValue(input: {
        projectId: $p, itemId: $i, fieldId: $f, value: $v }) { projectV2Item { id } } }`,
      { p: projectId, i: itemId, f: (await fieldId(field)).id, v: value },
    );
  };
  const stories = async (): Promise<Map<string, WorkItem>> => {
    const out = new Map<string, WorkItem>();
    for await (const s of tinypm.list({ kind: "story" })) out.set(s.id, s);
    return out;
  };
  const sync = async () => {
    const report = await world.run("sync");
    expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
    return report;
  };
  const tinypmWrites = (report: Awaited<ReturnType<World["run"]>>): number =>
    report.plan.actions.filter(
      (a) =>
        (a.type === "update" && Object.keys(a.tinypmSet).length > 0) ||
        (a.type === "create" && a.toSide === "tinypm"),
    ).length;

  beforeAll(async () => {
    world = await startWorld({
      target: "github",
      generate: "stories=12,tasks=1,comments=0",
      project: { owner: "acme", title: "Widgets board" },
    });
    if (world.target.kind !== "github") throw new Error("a GitHub world");
    const server = world.target.server;
    gql = graphql.defaults({
      baseUrl: server.url,
      headers: { authorization: `token ${server.token}` },
    });
    tinypm = world.tinypmTracker();
    iterations = await tinypm.listIterations();
    await world.run("migrate");
    const found = await gql<{
      organization: { projectsV2: { nodes: { id: string; title: string }[] } };
    }>(`{ organization(login: "acme") { projectsV2(first: 10) { nodes { id title } } } }`);
    const p = found.organization.projectsV2.nodes.find((n) => n.title === "Widgets board");
    if (p === undefined) throw new Error("the migration made no project");
    projectId = p.id;
  });
  afterAll(async () => {
    await tinypm.close();
    await world.close();
  });

  it("puts every story on the board with status, iteration (same dates), estimate and priority", async () => {
    const rows = await board();
    const links = storyLinks(world, 12);
    for (const [id, story] of await stories()) {
      const link = links.find((l) => l.tinypmId === id);
      const row = link === undefined ? undefined : rows.get(Number(link.targetId));
      expect(row, `story ${id} on the board`).toBeDefined();
      expect(row?.status).toBe(STATUS[story.status]);
      expect(row?.priority).toBe(
        story.priority === undefined ? undefined : PRIORITY[story.priority],
      );
      expect(row?.estimate).toBe(story.estimate);
      const it = iterations.find((i) => i.name === story.iteration?.name);
      const want =
        it === undefined
          ? undefined
          : { title: it.name, startDate: it.startDate, duration: it.durationDays };
      const got =
        row?.iteration === undefined
          ? undefined
          : {
              title: row.iteration.title,
              startDate: row.iteration.startDate,
              duration: row.iteration.duration,
            };
      expect(got).toEqual(want);
    }
  });

  it("carries board edits to tinyPM and tinyPM edits to the board", async () => {
    await sync();
    const links = storyLinks(world, 12);
    const [a, b] = links;
    if (a === undefined || b === undefined) throw new Error("two links");
    const rows = await board();
    const rowA = rows.get(Number(a.targetId));
    if (rowA === undefined) throw new Error("story a on the board");
    const done = (await fieldId("Status")).options?.find((o) => o.name === "Done")?.id;
    const wont = (await fieldId("Priority")).options?.find((o) => o.name === "Won't have")?.id;
    await setValue(rowA.itemId, "Status", { singleSelectOptionId: done });
    await setValue(rowA.itemId, "Estimate", { number: 13 });
    await setValue(rowA.itemId, "Priority", { singleSelectOptionId: wont });
    await tinypm.update(
      { kind: "story", id: b.tinypmId },
      { set: { priority: "MUST_HAVE", estimate: 21 } },
    );
    await sync();
    const after = await stories();
    expect(after.get(a.tinypmId)).toMatchObject({
      status: "ACCEPTED",
      estimate: 13,
      priority: "WONT_HAVE",
    });
    const rowB = (await board()).get(Number(b.targetId));
    expect(rowB).toMatchObject({ priority: "Must have", estimate: 21 });
  });

  it("repairs another tool's rewrite of the iteration field without writing tinyPM", async () => {
    await sync();
    const before = await board();
    const withIteration = [...before.values()].filter((r) => r.iteration !== undefined);
    expect(withIteration.length).toBeGreaterThan(0);
    const storiesBefore = await stories();
    const field = await fieldId("Iteration");
    const cfg = await gql<{
      node: {
        configuration: {
          iterations: { title: string; startDate: string; duration: number }[];
          completedIterations: { title: string; startDate: string; duration: number }[];
        };
      };
    }>(
      `query($f: ID!) { node(id: $f) { ... on ProjectV2IterationField { configuration {
        iterations { title startDate duration } completedIterations { title startDate duration } } } } }`,
      { f: field.id },
    );
    const all = [
      ...cfg.node.configuration.completedIterations,
      ...cfg.node.configuration.iterations,
    ];
    await gql(
      `mutation($f: ID!, $c: ProjectV2IterationFieldConfigurationInput!) { updateProjectV2Field(input: {
        fieldId: $f, iterationConfiguration: $c }) { projectV2Field { ... on ProjectV2FieldCommon { id } } } }`,
      { f: field.id, c: { startDate: all[0]?.startDate, duration: 14, iterations: all } },
    );
    const cleared = await board();
    expect([...cleared.values()].filter((r) => r.iteration !== undefined)).toEqual([]);

    const report = await sync();
    expect(tinypmWrites(report)).toBe(0);
    const restored = await board();
    for (const r of withIteration) {
      const now = restored.get(r.number)?.iteration;
      expect(now?.title).toBe(r.iteration?.title);
      expect(now?.startDate).toBe(r.iteration?.startDate);
      expect(now?.id).not.toBe(r.iteration?.id);
    }
    const storiesAfter = await stories();
    for (const [id, s] of storiesBefore)
      expect(storiesAfter.get(id)?.iteration?.name).toBe(s.iteration?.name);
  });

  it("a quiet sync reads the board in pages of 100 and writes nothing", async () => {
    await sync();
    if (world.target.kind !== "github") throw new Error("a GitHub world");
    const server = world.target.server;
    const items = (await board()).size;
    const before = server.stats();
    const report = await sync();
    const after = server.stats();
    const graphqlRequests =
      (after.byRoute["POST /graphql"] ?? 0) - (before.byRoute["POST /graphql"] ?? 0);
    expect(graphqlRequests).toBeLessThanOrEqual(Math.ceil(items / 100) + 3);
    expect(after.writes - before.writes).toBe(0);
    expect(tinypmWrites(report)).toBe(0);
  });
});

interface Page {
  node: {
    items: {
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      nodes: {
        id: string;
        content: { number: number };
        fieldValues: {
          nodes: {
            name?: string;
            number?: number;
            iterationId?: string;
            title?: string;
            startDate?: string;
            duration?: number;
            field?: { name: string };
          }[];
        };
      }[];
    };
  };
}
