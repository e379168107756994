import { graphql } from "@octokit/graphql";
import { afterEach, describe, expect, it } from "vitest";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";

/** The sandbox's GraphQL Projects (v2) surface, through GitHub's own client (`@octokit/graphql`). */

let sandbox: GithubSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(opts: Parameters<typeof startGithubSandbox>[0] = {}) {
  sandbox = await startGithubSandbox({ now: () => Date.parse("2026-03-02T09:00:00Z"), ...opts });
  const gql = graphql.defaults({
    baseUrl: sandbox.url,
    headers: { authorization: `token ${sandbox.token}` },
  });
  const rest = async (
    path: string,
    body: unknown,
  ): Promise<{ number: number; node_id: string }> => {
    const res = await fetch(`${sandbox?.url}${path}`, {
      method: "POST",
      headers: {
        authorization: `token ${sandbox?.token}`,
        "user-agent": "t",
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { number: number; node_id: string };
  };
  return { sandbox, gql, rest };
}

async function projectOf(gql: typeof graphql): Promise<string> {
  const owner = await gql<{ organization: { id: string } }>(
    `{ organization(login: "acme") { id } }`,
  );
  const made = await gql<{ createProjectV2: { projectV2: { id: string; number: number } } }>(
    `mutation($o: ID!) { createProjectV2(input: { ownerId: $o, title: "Board" }) { projectV2 { id number } } }`,
    { o: owner.organization.id },
  );
  return made.createProjectV2.projectV2.id;
}

const ITERATION_FIELD = `mutation($p: ID!) { createProjectV2Field(input: { projectId: $p, dataType: ITERATION, name: "Iteration",
  iterationConfiguration: { startDate: "2026-03-02", duration: 14, iterations: [
    { title: "Sprint 1", startDate: "2026-03-02", duration: 14 },
    { title: "Sprint 2", startDate: "2026-03-16", duration: 14 } ] } }) {
  projectV2Field { ... on ProjectV2IterationField { id configuration { iterations { id title startDate duration } } } } } }`;

interface IterField {
  createProjectV2Field: {
    projectV2Field: {
      id: string;
      configuration: {
        iterations: { id: string; title: string; startDate: string; duration: number }[];
      };
    };
  };
}

describe("GitHub sandbox: GraphQL Projects (v2)", () => {
  it("finds a project by owner and number, answers NOT_FOUND with HTTP 200 and errors[].type", async () => {
    const { gql, sandbox: s } = await start();
    await projectOf(gql);
    const found = await gql<{
      organization: {
        projectV2: { number: number; title: string; fields: { nodes: { name: string }[] } };
      };
    }>(
      `{ organization(login: "acme") { projectV2(number: 1) { number title fields(first: 20) { nodes { ... on ProjectV2FieldCommon { name } } } } } }`,
    );
    expect(found.organization.projectV2.title).toBe("Board");
    expect(found.organization.projectV2.fields.nodes.map((f) => f.name)).toContain("Status");
    const res = await fetch(`${s.url}/api/graphql`, {
      method: "POST",
      headers: { authorization: `token ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        query: `{ organization(login: "acme") { projectV2(number: 99) { id } } }`,
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      data: unknown;
      errors: { type: string; path: string[] }[];
    };
    expect(body.errors[0]?.type).toBe("NOT_FOUND");
    expect(body.errors[0]?.path).toEqual(["organization", "projectV2"]);
    expect(res.headers.get("x-ratelimit-resource")).toBe("graphql");
  });

  it("refuses unknown fields at validation and connections without first/last", async () => {
    const { gql } = await start();
    const id = await projectOf(gql);
    await expect(gql(`{ viewer { nope } }`)).rejects.toThrow(/Cannot query field "nope"/);
    await expect(
      gql(`query($p: ID!) { node(id: $p) { ... on ProjectV2 { items { totalCount } } } }`, {
        p: id,
      }),
    ).rejects.toThrow(/You must provide a `first` or `last` value/);
    await expect(
      gql(
        `query($p: ID!) { node(id: $p) { ... on ProjectV2 { items(first: 101) { totalCount } } } }`,
        { p: id },
      ),
    ).rejects.toThrow(/exceeds the `first` limit of 100/);
  });

  it("adds items idempotently, sets values with aliased mutations, reads them back in pages", async () => {
    const { gql, rest } = await start();
    const p = await projectOf(gql);
    const issues = [];
    for (let i = 0; i < 3; i++)
      issues.push(await rest("/repos/acme/widgets/issues", { title: `Story ${i}` }));
    const est = await gql<{ createProjectV2Field: { projectV2Field: { id: string } } }>(
      `mutation($p: ID!) { createProjectV2Field(input: { projectId: $p, dataType: NUMBER, name: "Estimate" }) { projectV2Field { ... on ProjectV2Field { id } } } }`,
      { p },
    );
    const add = `mutation($p: ID!, $c: ID!) { addProjectV2ItemById(input: { projectId: $p, contentId: $c }) { item { id } } }`;
    const first = await gql<{ addProjectV2ItemById: { item: { id: string } } }>(add, {
      p,
      c: issues[0]?.node_id,
    });
    const again = await gql<{ addProjectV2ItemById: { item: { id: string } } }>(add, {
      p,
      c: issues[0]?.node_id,
    });
    expect(again.addProjectV2ItemById.item.id).toBe(first.addProjectV2ItemById.item.id);
    const item = first.addProjectV2ItemById.item.id;
    const f = est.createProjectV2Field.projectV2Field.id;
    await gql(
      `mutation($p: ID!, $i: ID!, $f: ID!) {
        a: updateProjectV2ItemFieldValue(input: { projectId: $p, itemId: $i, fieldId: $f, value: { number: 3 } }) { projectV2Item { id } }
        b: updateProjectV2ItemFieldValue(input: { projectId: $p, itemId: $i, fieldId: $f, value: { number: 5.5 } }) { projectV2Item { id } } }`,
      { p, i: item, f },
    );
    for (const i of issues.slice(1)) await gql(add, { p, c: i.node_id });
    const page1 = await gql<{
      node: {
        items: {
          pageInfo: { hasNextPage: boolean; endCursor: string };
          nodes: { content: { number: number }; fieldValues: { nodes: { number?: number }[] } }[];
        };
      };
    }>(
      `query($p: ID!) { node(id: $p) { ... on ProjectV2 { items(first: 2) { pageInfo { hasNextPage endCursor }
        nodes { content { ... on Issue { number } } fieldValues(first: 20) { nodes { ... on ProjectV2ItemFieldNumberValue { number } } } } } } } }`,
      { p },
    );
    expect(page1.node.items.nodes.map((n) => n.content.number)).toEqual([1, 2]);
    expect(page1.node.items.nodes[0]?.fieldValues.nodes).toContainEqual({ number: 5.5 });
    expect(page1.node.items.pageInfo.hasNextPage).toBe(true);
    await expect(
      gql(
        `mutation($p: ID!, $i: ID!, $f: ID!) { updateProjectV2ItemFieldValue(input: { projectId: $p, itemId: $i, fieldId: $f, value: { text: "x" } }) { projectV2Item { id } } }`,
        { p, i: item, f },
      ),
    ).rejects.toThrow(/valid value for number column/);
  });

  it("rewriting the iteration configuration gives every iteration a new id and clears every item's value", async () => {
    const { gql, rest } = await start();
    const p = await projectOf(gql);
    const issue = await rest("/repos/acme/widgets/issues", { title: "Story" });
    const field = (await gql<IterField>(ITERATION_FIELD, { p })).createProjectV2Field
      .projectV2Field;
    const added = await gql<{ addProjectV2ItemById: { item: { id: string } } }>(
      `mutation($p: ID!, $c: ID!) { addProjectV2ItemById(input: { projectId: $p, contentId: $c }) { item { id } } }`,
      { p, c: issue.node_id },
    );
    const sprint1 = field.configuration.iterations[0];
    await gql(
      `mutation($p: ID!, $i: ID!, $f: ID!, $it: String!) { updateProjectV2ItemFieldValue(input: { projectId: $p, itemId: $i, fieldId: $f, value: { iterationId: $it } }) { projectV2Item { id } } }`,
      { p, i: added.addProjectV2ItemById.item.id, f: field.id, it: sprint1?.id },
    );
    const rewritten = await gql<{
      updateProjectV2Field: {
        projectV2Field: { configuration: { iterations: { id: string; title: string }[] } };
      };
    }>(
      `mutation($f: ID!) { updateProjectV2Field(input: { fieldId: $f, iterationConfiguration: { startDate: "2026-03-02", duration: 14, iterations: [
        { title: "Sprint 1", startDate: "2026-03-02", duration: 14 }, { title: "Sprint 2", startDate: "2026-03-16", duration: 14 },
        { title: "Sprint 3", startDate: "2026-03-30", duration: 14 } ] } }) {
        projectV2Field { ... on ProjectV2IterationField { configuration { iterations { id title } } } } } }`,
      { f: field.id },
    );
    const after = rewritten.updateProjectV2Field.projectV2Field.configuration.iterations;
    expect(after.map((i) => i.title)).toEqual(["Sprint 1", "Sprint 2", "Sprint 3"]);
    expect(after.map((i) => i.id)).not.toContain(sprint1?.id);
    const values = await gql<{ node: { fieldValues: { nodes: { __typename: string }[] } } }>(
      `query($i: ID!) { node(id: $i) { ... on ProjectV2Item { fieldValues(first: 20) { nodes { __typename } } } } }`,
      { i: added.addProjectV2ItemById.item.id },
    );
    expect(values.node.fieldValues.nodes.map((n) => n.__typename)).not.toContain(
      "ProjectV2ItemFieldIterationValue",
    );
  });

  it("keeps single-select assignments when the options are re-sent with their ids, clears them when not", async () => {
    const { gql, rest } = await start();
    const p = await projectOf(gql);
    const issue = await rest("/repos/acme/widgets/issues", { title: "Story" });
    const status = await gql<{
      node: { field: { id: string; options: { id: string; name: string }[] } };
    }>(
      `query($p: ID!) { node(id: $p) { ... on ProjectV2 { field(name: "Status") { ... on ProjectV2SingleSelectField { id options { id name } } } } } }`,
      { p },
    );
    const { id: fieldId, options } = status.node.field;
    const item = (
      await gql<{ addProjectV2ItemById: { item: { id: string } } }>(
        `mutation($p: ID!, $c: ID!) { addProjectV2ItemById(input: { projectId: $p, contentId: $c }) { item { id } } }`,
        { p, c: issue.node_id },
      )
    ).addProjectV2ItemById.item.id;
    const done = options.find((o) => o.name === "Done")?.id;
    await gql(
      `mutation($p: ID!, $i: ID!, $f: ID!, $o: String!) { updateProjectV2ItemFieldValue(input: { projectId: $p, itemId: $i, fieldId: $f, value: { singleSelectOptionId: $o } }) { projectV2Item { id } } }`,
      { p, i: item, f: fieldId, o: done },
    );
    const resend = (withIds: boolean) =>
      gql(
        `mutation($f: ID!, $o: [ProjectV2SingleSelectFieldOptionInput!]) { updateProjectV2Field(input: { fieldId: $f, singleSelectOptions: $o }) { projectV2Field { ... on ProjectV2SingleSelectField { id } } } }`,
        {
          f: fieldId,
          o: [
            ...options.map((o) => ({
              ...(withIds ? { id: o.id } : {}),
              name: o.name,
              color: "GRAY",
              description: "",
            })),
            { name: "Rejected", color: "RED", description: "" },
          ],
        },
      );
    const statusOf = async () =>
      (
        await gql<{ node: { fieldValueByName: { name: string } | null } }>(
          `query($i: ID!) { node(id: $i) { ... on ProjectV2Item { fieldValueByName(name: "Status") { ... on ProjectV2ItemFieldSingleSelectValue { name } } } } }`,
          { i: item },
        )
      ).node.fieldValueByName;
    await resend(true);
    expect(await statusOf()).toEqual({ name: "Done" });
    await resend(false);
    expect(await statusOf()).toBeNull();
  });

  it("charges points: a query its cost, a mutation request 1; RATE_LIMITED with HTTP 200 when spent", async () => {
    const { gql, sandbox: s } = await start({ graphqlPointsPerHour: 3 });
    await gql(`{ organization(login: "acme") { id } }`);
    const res = await fetch(`${s.url}/graphql`, {
      method: "POST",
      headers: { authorization: `token ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: `{ rateLimit { cost used remaining limit } }` }),
    });
    expect(res.headers.get("x-ratelimit-used")).toBe("2");
    expect(((await res.json()) as { data: { rateLimit: unknown } }).data.rateLimit).toMatchObject({
      cost: 1,
      used: 2,
      remaining: 1,
      limit: 3,
    });
    await gql(`{ viewer { login } }`);
    const spent = await fetch(`${s.url}/graphql`, {
      method: "POST",
      headers: { authorization: `token ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: `{ viewer { login } }` }),
    });
    expect(spent.status).toBe(200);
    expect(spent.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(((await spent.json()) as { errors: { type: string }[] }).errors[0]?.type).toBe(
      "RATE_LIMITED",
    );
  });
});
