/** `sandbox github|jira --users FILE`: the sandbox's people from a file, as the real service shows them. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./fixtures.js";
import { CLI, runCliProcess } from "./spawn.js";

const children: ChildProcessWithoutNullStreams[] = [];
const tmp = tempDir();
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});
afterAll(() => {
  tmp.cleanup();
});

/** Starts a sandbox and resolves with its stdout lines up to the `users:` line. */
async function start(name: string, args: readonly string[]): Promise<string[]> {
  const child = spawn(process.execPath, [CLI, "sandbox", name, "--rate-limits", "off", ...args], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
  });
  children.push(child);
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    reader.on("line", (line) => {
      lines.push(line);
      if (line.startsWith("users: ")) resolve();
    });
    child.on("exit", (code) => {
      reject(new Error(`sandbox exited early with ${String(code)}`));
    });
  });
  return lines;
}

const value = (lines: readonly string[], key: string): string =>
  lines.find((l) => l.startsWith(`${key}: `))?.slice(key.length + 2) ?? "";

describe("sandbox --users FILE", () => {
  it("jira: accountIds, names, emails shown or hidden, who can be assigned", async () => {
    const file = join(tmp.dir, "jira-users.yaml");
    writeFileSync(
      file,
      [
        "users:",
        "  - { login: ana, displayName: Ana Lima, email: ana@corp.example, emailVisible: true }",
        "  - { login: ben, accountId: 5b10a2844c20165700ede21g, emailVisible: false }",
        "  - { login: cy, emailVisible: true, assignable: false }",
        "",
      ].join("\n"),
    );
    const lines = await start("jira", ["--users", file, "--token", "t0k"]);
    expect(value(lines, "users")).toBe("ana, ben, cy");
    const url = (lines[0] ?? "").replace("Jira sandbox listening on ", "");
    const auth = `Basic ${Buffer.from(`${value(lines, "email")}:t0k`).toString("base64")}`;
    const get = async (path: string): Promise<unknown> =>
      (await fetch(`${url}${path}`, { headers: { authorization: auth } })).json();
    const project = value(lines, "project");
    const assignable = (await get(`/rest/api/3/user/assignable/search?project=${project}`)) as {
      accountId: string;
      displayName: string;
      emailAddress?: string;
    }[];
    const people = assignable.filter((u) => u.accountId !== "acc-sandbox"); // the app user
    expect(people.map((u) => [u.accountId, u.displayName, u.emailAddress])).toEqual([
      ["acc-ana", "Ana Lima", "ana@corp.example"],
      ["5b10a2844c20165700ede21g", expect.any(String), undefined],
    ]);
    const cy = (await get("/rest/api/3/user?accountId=acc-cy")) as { emailAddress?: string };
    expect(cy.emailAddress).toBe("cy@example.com");
  });

  it("github: names, public emails, collaborators only as assignees", async () => {
    const file = join(tmp.dir, "github-users.json");
    writeFileSync(
      file,
      JSON.stringify({
        users: [
          "owner1",
          { login: "ana-gh", name: "Ana Lima", publicEmail: "ana@corp.example" },
          { login: "guest", collaborator: false },
        ],
      }),
    );
    const lines = await start("github", ["--users", file, "--token", `ghp_${"a".repeat(36)}`]);
    expect(value(lines, "users")).toBe("owner1, ana-gh, guest");
    const url = (lines[0] ?? "").replace("GitHub sandbox listening on ", "");
    const headers = { authorization: `token ghp_${"a".repeat(36)}`, "user-agent": "t" };
    const get = async (path: string): Promise<unknown> =>
      (await fetch(`${url}${path}`, { headers })).json();
    const profile = (await get("/users/ana-gh")) as { name: string; email: string };
    expect(profile).toMatchObject({ name: "Ana Lima", email: "ana@corp.example" });
    const assignees = (await get(`/repos/${value(lines, "repository")}/assignees`)) as {
      login: string;
    }[];
    expect(assignees.map((u) => u.login)).toEqual(["owner1", "ana-gh"]);
  });

  it("a bad file names the file, the entry and what is allowed, and starts nothing", async () => {
    const file = join(tmp.dir, "bad-users.yaml");
    writeFileSync(file, "users:\n  - { login: ana, emailVisble: true }\n");
    const r = await runCliProcess(["sandbox", "jira", "--users", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/users > 0/);
    expect(r.stderr).toMatch(/emailVisble/);
    const dup = join(tmp.dir, "dup-users.yaml");
    writeFileSync(dup, "users: [ana, Ana]\n");
    const d = await runCliProcess(["sandbox", "github", "--users", dup]);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain(`--users ${dup}`);
    expect(d.stderr).toMatch(/listed twice/);
  });
});
