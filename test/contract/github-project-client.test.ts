import { graphql } from "@octokit/graphql";
import { Octokit } from "@octokit/core";
import GitHubProject from "github-project";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tracker } from "../../src/core/tracker.js";
import { startWorld, storyLinks, type World } from "../roundtrip/world.js";

/**
 * A public Projects (v2) client nobody here wrote — gr2m's `github-project` from npm, unmodified —
 * against the GitHub sandbox: it reads the board a migration made (items with their field values)
 * and sets a field, which the next `sync` brings to tinyPM.
 */
const STATUS: Record<string, string> = { PENDING: "Todo", ACCEPTED: "Done", REJECTED: "Won't do" };
const PRIORITY: Record<string, string> = {
  MUST_HAVE: "Must have",
  SHOULD_HAVE: "Should have",
  COULD_HAVE: "Could have",
  WONT_HAVE: "Won't have",
};

describe("github-project (npm) against the sandbox's board", () => {
  let world: World;
  let tinypm: Tracker;
  let project: GitHubProject<{
    status: string;
    estimate: string;
    priority: string;
    iteration: string;
  }>;

  beforeAll(async () => {
    world = await startWorld({
      target: "github",
      generate: "stories=5,tasks=0,comments=0",
      project: { owner: "acme", title: "Client board" },
    });
    if (world.target.kind !== "github") throw new Error("a GitHub world");
    const server = world.target.server;
    tinypm = world.tinypmTracker();
    await world.run("migrate");
    const gql = graphql.defaults({
      baseUrl: server.url,
      headers: { authorization: `token ${server.token}` },
    });
    const found = await gql<{
      organization: { projectsV2: { nodes: { number: number; title: string }[] } };
    }>(`{ organization(login: "acme") { projectsV2(first: 10) { nodes { number title } } } }`);
    const number = found.organization.projectsV2.nodes.find(
      (p) => p.title === "Client board",
    )?.number;
    if (number === undefined) throw new Error("the migration made no project");
    project = new GitHubProject({
      owner: "acme",
      number,
      octokit: new Octokit({ auth: server.token, baseUrl: server.url }),
      fields: {
        status: "Status",
        estimate: "Estimate",
        priority: "Priority",
        iteration: "Iteration",
      },
    });
  });
  afterAll(async () => {
    await tinypm.close();
    await world.close();
  });

  it("reads every item with the values the migration set", async () => {
    const items = await project.items.list();
    const links = storyLinks(world, 5);
    expect(items).toHaveLength(5);
    for (const link of links) {
      const story = await tinypm.get({ kind: "story", id: link.tinypmId });
      if (story === undefined) throw new Error(`story ${link.tinypmId} gone`);
      const item = items.find(
        (i) => i.type === "ISSUE" && i.content.number === Number(link.targetId),
      );
      expect(item, `story ${link.tinypmId} on the board`).toBeDefined();
      expect(item?.fields.status).toBe(STATUS[story.status]);
      expect(item?.fields.priority ?? undefined).toBe(
        story.priority === undefined ? undefined : PRIORITY[story.priority],
      );
      expect(item?.fields.estimate ?? undefined).toBe(
        story.estimate === undefined ? undefined : String(story.estimate),
      );
      expect(item?.fields.iteration ?? undefined).toBe(story.iteration?.name);
    }
  });

  it("sets a field that the next sync brings to tinyPM", async () => {
    const [link] = storyLinks(world, 5);
    if (link === undefined) throw new Error("a link");
    const updated = await project.items.updateByContentRepositoryAndNumber(
      "widgets",
      Number(link.targetId),
      { estimate: "55", priority: "Won't have" },
    );
    expect(updated?.fields).toMatchObject({ estimate: "55", priority: "Won't have" });
    const report = await world.run("sync");
    expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
    const story = await tinypm.get({ kind: "story", id: link.tinypmId });
    expect(story).toMatchObject({ estimate: 55, priority: "WONT_HAVE" });
  });
});
