import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";

/**
 * GitHub deletes an issue only through GraphQL `deleteIssue`, and only for admins of the
 * repository: others get HTTP 200 with a FORBIDDEN error (REST has no delete); a deleted
 * issue's number answers 410 from then on.
 */
let gh: GithubSandbox;
beforeAll(async () => {
  gh = await startGithubSandbox({ rateLimits: "off" });
});
afterAll(async () => {
  await gh.close();
});

const rest = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${gh.url}/repos/${gh.owner}/${gh.repo}${path}`, {
    method,
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const DELETE = `mutation($input: DeleteIssueInput!) {
  deleteIssue(input: $input) { clientMutationId repository { nameWithOwner } }
}`;

async function deleteIssue(token: string, issueId: string) {
  const res = await fetch(`${gh.url}/graphql`, {
    method: "POST",
    headers: { authorization: `bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      query: DELETE,
      variables: { input: { issueId, clientMutationId: "x" } },
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("the GitHub sandbox's deleteIssue", () => {
  it("deletes for an admin only; the number answers 410 after", async () => {
    const made = (await (await rest(gh.token, "POST", "/issues", { title: "To go" })).json()) as {
      number: number;
      node_id: string;
    };
    // A collaborator with push access may write the issue, but not delete it.
    expect(
      (await rest(gh.writeToken, "PATCH", `/issues/${made.number}`, { title: "Still" })).status,
    ).toBe(200);
    const refused = await deleteIssue(gh.writeToken, made.node_id);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({
      data: { deleteIssue: null },
      errors: [{ type: "FORBIDDEN", path: ["deleteIssue"] }],
    });
    const reader = await deleteIssue(gh.readToken, made.node_id);
    expect(reader.body).toMatchObject({ errors: [{ type: "FORBIDDEN" }] });
    expect((await rest(gh.token, "GET", `/issues/${made.number}`)).status).toBe(200);

    const done = await deleteIssue(gh.token, made.node_id);
    expect(done).toEqual({
      status: 200,
      body: {
        data: {
          deleteIssue: {
            clientMutationId: "x",
            repository: { nameWithOwner: `${gh.owner}/${gh.repo}` },
          },
        },
      },
    });
    expect((await rest(gh.token, "GET", `/issues/${made.number}`)).status).toBe(410);
    const again = await deleteIssue(gh.token, made.node_id);
    expect(again.body).toMatchObject({ errors: [{ type: "NOT_FOUND" }] });
  });

  it("answers the repository's permissions per token", async () => {
    const perms = async (token: string) =>
      ((await (await rest(token, "GET", "")).json()) as { permissions: Record<string, boolean> })
        .permissions;
    expect(await perms(gh.token)).toMatchObject({ admin: true, push: true });
    expect(await perms(gh.writeToken)).toMatchObject({ admin: false, push: true });
    expect(await perms(gh.readToken)).toMatchObject({ admin: false, push: false });
  });
});
