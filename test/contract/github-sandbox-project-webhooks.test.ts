import type { EmitterWebhookEvent } from "@octokit/webhooks";
import { Webhooks } from "@octokit/webhooks";
import { graphql } from "@octokit/graphql";
import { afterEach, describe, expect, it } from "vitest";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";

/**
 * Issue #33: GitHub sends `projects_v2_item` deliveries for an organization's projects only —
 * an item added, a field value set or cleared, an item removed — with the organization and no
 * repository. A user's project sends none.
 */
let sandbox: GithubSandbox | undefined;
let hook: WebhookReceiver | undefined;
afterEach(async () => {
  await sandbox?.close();
  await hook?.close();
  sandbox = undefined;
  hook = undefined;
});

type Item = EmitterWebhookEvent<"projects_v2_item">["payload"];

describe("the GitHub sandbox's projects_v2_item webhooks", () => {
  it("delivers created, edited (with the field) and deleted for an organization's project, and nothing for a user's", async () => {
    hook = await startWebhookReceiver();
    const s = await startGithubSandbox({
      users: ["alice"],
      webhook: { url: hook.url, secret: "gh-secret", retryDelaysMs: [] },
    });
    sandbox = s;
    const gql = graphql.defaults({
      baseUrl: s.url,
      headers: { authorization: `token ${s.token}` },
    });
    const res = await fetch(`${s.url}/repos/${s.owner}/${s.repo}/issues`, {
      method: "POST",
      headers: { authorization: `token ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "On the board" }),
    });
    const issue = (await res.json()) as { node_id: string };
    const owners = await gql<{ organization: { id: string }; user: { id: string } }>(
      `{ organization(login: "${s.owner}") { id } user(login: "alice") { id } }`,
    );
    const board = async (ownerId: string): Promise<{ project: string; field: string }> => {
      const made = await gql<{ createProjectV2: { projectV2: { id: string } } }>(
        `mutation($o: ID!) { createProjectV2(input: { ownerId: $o, title: "Board" }) { projectV2 { id } } }`,
        { o: ownerId },
      );
      const project = made.createProjectV2.projectV2.id;
      const field = await gql<{ createProjectV2Field: { projectV2Field: { id: string } } }>(
        `mutation($p: ID!) { createProjectV2Field(input: { projectId: $p, dataType: NUMBER, name: "Estimate" }) {
          projectV2Field { ... on ProjectV2Field { id } } } }`,
        { p: project },
      );
      return { project, field: field.createProjectV2Field.projectV2Field.id };
    };
    const walk = async (b: { project: string; field: string }): Promise<void> => {
      const added = await gql<{ addProjectV2ItemById: { item: { id: string } } }>(
        `mutation($p: ID!, $c: ID!) { addProjectV2ItemById(input: { projectId: $p, contentId: $c }) { item { id } } }`,
        { p: b.project, c: issue.node_id },
      );
      const item = added.addProjectV2ItemById.item.id;
      const args = { p: b.project, i: item, f: b.field };
      await gql(
        `mutation($p: ID!, $i: ID!, $f: ID!) { updateProjectV2ItemFieldValue(input: { projectId: $p, itemId: $i, fieldId: $f, value: { number: 5 } }) { projectV2Item { id } } }`,
        args,
      );
      await gql(
        `mutation($p: ID!, $i: ID!, $f: ID!) { clearProjectV2ItemFieldValue(input: { projectId: $p, itemId: $i, fieldId: $f }) { projectV2Item { id } } }`,
        args,
      );
      await gql(
        `mutation($p: ID!, $i: ID!) { deleteProjectV2Item(input: { projectId: $p, itemId: $i }) { deletedItemId } }`,
        args,
      );
    };
    const org = await board(owners.organization.id);
    await walk(org);
    await walk(await board(owners.user.id));
    await s.drainWebhooks();

    const verifier = new Webhooks({ secret: "gh-secret" });
    const items = hook.got.filter((r) => r.headers["x-github-event"] === "projects_v2_item");
    for (const r of items) {
      expect(await verifier.verify(r.body, String(r.headers["x-hub-signature-256"]))).toBe(true);
      expect(r.headers["x-github-hook-installation-target-type"]).toBe("organization");
    }
    const payloads = items.map((r) => JSON.parse(r.body) as Item);
    expect(payloads.map((p) => p.action)).toEqual(["created", "edited", "edited", "deleted"]);
    for (const p of payloads) {
      expect(p.projects_v2_item).toMatchObject({
        project_node_id: org.project,
        content_node_id: issue.node_id,
        content_type: "Issue",
      });
      expect(p.organization.login).toBe(s.owner);
      expect(p).not.toHaveProperty("repository");
    }
    expect(
      (payloads[1] as EmitterWebhookEvent<"projects_v2_item.edited">["payload"]).changes,
    ).toEqual({ field_value: { field_node_id: org.field, field_type: "number" } });
  });
});
