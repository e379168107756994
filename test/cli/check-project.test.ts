import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { graphql } from "@octokit/graphql";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { GithubSandboxOptions } from "../../src/sandboxes/github/index.js";
import { startServers, tempDir, writeBoardConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `check` with `targets.github.project` probes the board: the project found (by number or
 * title), the fields the mapping needs (present, options to add, will be created), and what the
 * token may do — a classic token without the project scope, or one that only reads it, gets a
 * hint naming the scope; a fine-grained token cannot reach a user's project (a classic one can).
 */
let servers: Servers | undefined;
const tmp = tempDir();
let n = 0;

afterEach(async () => {
  await servers?.close();
  servers = undefined;
});
afterAll(() => {
  tmp.cleanup();
});

async function start(github: GithubSandboxOptions = {}): Promise<Servers> {
  servers = await startServers("stories=2", github);
  return servers;
}

/** Runs `check` on a config whose `gh` job has the project `project`; returns its lines. */
async function check(
  s: Servers,
  project: Record<string, unknown>,
): Promise<{ code: number | null; project: string; stdout: string }> {
  const dir = join(tmp.dir, String(++n));
  mkdirSync(dir);
  const file = writeBoardConfig(dir, s, project);
  const r = await runCliProcess(["check", "--config", file], { env: s.env });
  const line = /^(ok {2}|FAIL) job gp: github: .*Project \(v2\).*$/m.exec(r.stdout)?.[0] ?? "";
  return { code: r.code, project: line, stdout: r.stdout };
}

/**
 * Makes a project owned by `login` with GitHub's default fields (Status: Todo, In Progress,
 * Done), with the collaborator's token (its classic scopes include `project`).
 */
async function makeProject(s: Servers, login: string, title: string): Promise<number> {
  const gql = graphql.defaults({
    baseUrl: s.github.url,
    headers: { authorization: `token ${s.github.writeToken}` },
  });
  const owner = await gql<{ repositoryOwner: { id: string } }>(
    `query($l: String!) { repositoryOwner(login: $l) { id } }`,
    { l: login },
  );
  const made = await gql<{ createProjectV2: { projectV2: { number: number } } }>(
    `mutation($o: ID!, $t: String!) { createProjectV2(input: { ownerId: $o, title: $t }) { projectV2 { number } } }`,
    { o: owner.repositoryOwner.id, t: title },
  );
  return made.createProjectV2.projectV2.number;
}

describe("check: the GitHub Project (v2) board", () => {
  it("lists the mapping's fields as present, with options to add, or to be created", async () => {
    const s = await start();
    const number = await makeProject(s, s.github.owner, "Sprint board");
    const r = await check(s, { owner: s.github.owner, number });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok +job gp: github: GitHub at .*repository/m);
    expect(r.project).toMatch(/^ok +job gp: github: Project \(v2\) acme\/1 "Sprint board"/);
    expect(r.project).toContain("(organization acme)");
    // GitHub's default Status lacks the mapping's own columns; the rest will be created.
    expect(r.project).toMatch(/Status present, options to add: [^;]*Won't do/);
    expect(r.project).toContain("Iteration will be created");
    expect(r.project).toContain("Estimate will be created");
    expect(r.project).toContain("Priority will be created");
  });

  it("a field of the mapping's name but another type: mapping_invalid and what to do", async () => {
    const s = await start();
    const number = await makeProject(s, s.github.owner, "Typed board");
    const gql = graphql.defaults({
      baseUrl: s.github.url,
      headers: { authorization: `token ${s.github.token}` },
    });
    const p = await gql<{ organization: { projectV2: { id: string } } }>(
      `query($o: String!, $n: Int!) { organization(login: $o) { projectV2(number: $n) { id } } }`,
      { o: s.github.owner, n: number },
    );
    await gql(
      `mutation($p: ID!) { createProjectV2Field(input: { projectId: $p, dataType: TEXT, name: "Estimate" }) { clientMutationId } }`,
      { p: p.organization.projectV2.id },
    );
    const r = await check(s, { owner: s.github.owner, number });
    expect(r.code).toBe(3);
    expect(r.project).toContain("FAIL job gp: github: [mapping_invalid]");
    expect(r.project).toContain("Estimate is TEXT, needs NUMBER");
    expect(r.project).toContain("— hint: Rename the project's field");
  });

  it("a project to find by title that is not there yet: made by the first migrate", async () => {
    const s = await start();
    const r = await check(s, { owner: s.github.owner, title: "New board" });
    expect(r.code).toBe(0);
    expect(r.project).toMatch(/^ok +.*"New board" of acme \(organization acme\) not there yet/);
    expect(r.project).toContain("the first migrate creates it");
  });

  it("a project number that does not exist: not_found and what to check", async () => {
    const s = await start();
    const r = await check(s, { owner: s.github.owner, number: 42 });
    expect(r.code).toBe(3);
    expect(r.project).toContain("FAIL job gp: github: [not_found] Project (v2) acme/42: not found");
    expect(r.project).toContain("— hint: Check targets.github.project");
  });

  it("a classic token without a project scope: the hint names read:project", async () => {
    const s = await start({ tokenScopes: ["repo"] });
    const r = await check(s, { owner: s.github.owner, number: 1 });
    expect(r.code).toBe(3);
    // The repository is fine: only the board fails.
    expect(r.stdout).toMatch(/^ok +job gp: github: GitHub at .*repository acme\/widgets$/m);
    expect(r.project).toContain("[permission_denied]");
    expect(r.project).toContain("has not been granted the required scopes");
    expect(r.project).toContain("— hint: Give GITHUB_TOKEN the read:project scope");
    expect(r.stdout).not.toContain(s.github.token);
  });

  it("a classic token that only reads projects: readable, but the hint asks for `project`", async () => {
    const s = await start({ tokenScopes: ["repo", "read:project"] });
    const number = await makeProject(s, s.github.owner, "Board");
    const r = await check(s, { owner: s.github.owner, number });
    expect(r.code).toBe(3);
    expect(r.project).toMatch(
      /^FAIL .*acme\/1 "Board" \(organization acme\): fields Status present/,
    );
    expect(r.project).toContain("(the token cannot write the board)");
    expect(r.project).toContain("give GITHUB_TOKEN the `project` scope");
  });

  it("a user-owned project and a fine-grained token: a classic token is needed", async () => {
    const s = await start({ tokenScopes: "fine-grained" });
    // The project exists; the token just cannot see a user's projects.
    const number = await makeProject(s, "alice", "Alice's board");
    const r = await check(s, { owner: "alice", number });
    expect(r.code).toBe(3);
    expect(r.project).toContain("[not_found] Project (v2) alice/1: not found");
    expect(r.project).toContain("A user-owned project needs a classic token");
  });

  it("the same user-owned project with a classic token: found", async () => {
    const s = await start();
    const number = await makeProject(s, "alice", "Alice's board");
    const r = await check(s, { owner: "alice", number });
    expect(r.code).toBe(0);
    expect(r.project).toMatch(/^ok +.*alice\/1 "Alice's board" \(user alice\)/);
  });
});
