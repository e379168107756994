import { afterEach, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import type { BoardSpec } from "../../src/core/board.js";
import { ConflictError } from "../../src/core/errors.js";
import type { Tracker } from "../../src/core/tracker.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";

/**
 * A board field a person changed after the run read the item is not overwritten: an update
 * planned against a base reads the item's values on the board first and refuses, writing nothing
 * (GitHub's mutations take no condition), as it does for the issue's own fields.
 */

const SPEC: BoardSpec = {
  fields: { status: "Status", iteration: "Iteration", estimate: "Estimate", priority: "Priority" },
  statusOptions: [
    { name: "Todo", color: "GRAY" },
    { name: "In Progress", color: "YELLOW" },
    { name: "Done", color: "GREEN" },
  ],
  priorityOptions: [{ name: "Must have", color: "RED" }],
  closed: { Done: "completed" },
  openStatus: "Todo",
};

let sandbox: GithubSandbox;
let tracker: Tracker;
afterEach(async () => {
  await tracker.close();
  await sandbox.close();
});

async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${sandbox.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.token}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (body.data === undefined) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

interface Board {
  projectId: string;
  items: { id: string; content: { number: number } }[];
  status: { id: string; options: { id: string; name: string }[] };
  estimate: { id: string };
}

async function boardNow(): Promise<Board> {
  const r = await gql<{
    organization: {
      projectsV2: {
        nodes: {
          id: string;
          title: string;
          items: { nodes: Board["items"] };
          status: Board["status"];
          estimate: Board["estimate"];
        }[];
      };
    };
  }>(`{ organization(login: "acme") { projectsV2(first: 10) { nodes { id title
      items(first: 10) { nodes { id content { ... on Issue { number } } } }
      status: field(name: "Status") { ... on ProjectV2SingleSelectField { id options { id name } } }
      estimate: field(name: "Estimate") { ... on ProjectV2FieldCommon { id } } } } } }`);
  const p = r.organization.projectsV2.nodes.find((n) => n.title === "Turn board");
  if (p === undefined) throw new Error("no project");
  return { projectId: p.id, items: p.items.nodes, status: p.status, estimate: p.estimate };
}

/** A person moves the card to `column` on the board. */
async function personMoves(number: number, column: string): Promise<void> {
  const b = await boardNow();
  const item = b.items.find((i) => i.content.number === number);
  const option = b.status.options.find((o) => o.name === column);
  if (item === undefined || option === undefined) throw new Error("no item or option");
  await gql(
    `mutation($p: ID!, $i: ID!, $f: ID!, $o: String!) { updateProjectV2ItemFieldValue(input: {
      projectId: $p, itemId: $i, fieldId: $f, value: { singleSelectOptionId: $o } }) { projectV2Item { id } } }`,
    { p: b.projectId, i: item.id, f: b.status.id, o: option.id },
  );
}

async function start() {
  sandbox = await startGithubSandbox();
  tracker = createGithubTracker({
    baseUrl: sandbox.url,
    token: sandbox.token,
    owner: sandbox.owner,
    repo: sandbox.repo,
    project: { owner: "acme", title: "Turn board" },
    board: SPEC,
  });
  const made = await tracker.create({
    kind: "story",
    title: "On the board",
    status: "Todo",
    estimate: 3,
    assignees: [],
    labels: [],
  });
  const ref = { kind: "story" as const, id: made.id };
  const base = await tracker.get(ref);
  if (base === undefined) throw new Error("the issue is gone");
  return { ref, base };
}

describe("a GitHub board update planned against a base", () => {
  it("refuses a Status a person changed since the read, writing nothing", async () => {
    const { ref, base } = await start();
    expect(base.status).toBe("Todo");
    await personMoves(Number(ref.id), "In Progress");
    const writes = sandbox.stats().writes;
    const error = await tracker
      .update(ref, { set: { status: "Done", title: "Renamed" }, base })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toBe(
      `The project item of GitHub issue #${ref.id} changed since it was planned against (status); nothing was written.`,
    );
    // Neither the issue (title, close) nor the board was written.
    expect(sandbox.stats().writes).toBe(writes);
    const now = await tracker.get(ref);
    expect(now).toMatchObject({ status: "In Progress", title: "On the board" });
  });

  it("writes a board field the person did not touch, keeping their Status", async () => {
    const { ref, base } = await start();
    await personMoves(Number(ref.id), "In Progress");
    const updated = await tracker.update(ref, { set: { estimate: 5 }, base });
    expect(updated).toMatchObject({ estimate: 5, status: "In Progress" });
    expect(await tracker.get(ref)).toMatchObject({ estimate: 5, status: "In Progress" });
  });

  it("is no conflict when the Status already holds what is written (a retry)", async () => {
    const { ref, base } = await start();
    await personMoves(Number(ref.id), "Done");
    const updated = await tracker.update(ref, { set: { status: "Done" }, base });
    expect(updated.status).toBe("Done");
  });

  it("puts an item a person removed from the board back with the Status written", async () => {
    const { ref, base } = await start();
    const b = await boardNow();
    const item = b.items.find((i) => i.content.number === Number(ref.id));
    await gql(
      `mutation($p: ID!, $i: ID!) { deleteProjectV2Item(input: { projectId: $p, itemId: $i }) { deletedItemId } }`,
      { p: b.projectId, i: item?.id },
    );
    const updated = await tracker.update(ref, { set: { status: "Done" }, base });
    expect(updated.status).toBe("Done");
    expect((await boardNow()).items.map((i) => i.content.number)).toEqual([Number(ref.id)]);
    expect(await tracker.get(ref)).toMatchObject({ status: "Done" });
  });
});
