import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, runCliProcess } from "./spawn.js";

const children: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `tinypm-sync sandbox jira …` and resolves with its first `count` stdout lines. */
async function startSandbox(
  args: readonly string[],
  count = 3,
): Promise<{ child: ChildProcessWithoutNullStreams; lines: string[] }> {
  const child = spawn(process.execPath, [CLI, "sandbox", "jira", ...args], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
  });
  children.push(child);
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    reader.on("line", (line) => {
      lines.push(line);
      if (lines.length === count) resolve();
    });
    child.on("exit", (code) => {
      reject(new Error(`sandbox exited early with ${String(code)}`));
    });
  });
  return { child, lines };
}

const exitCode = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) =>
    child.on("exit", (code) => {
      resolve(code);
    }),
  );

describe("tinypm-sync sandbox jira", () => {
  it("prints its URL, token and email, serves Basic-auth requests and exits 0 on SIGTERM", async () => {
    const { child, lines } = await startSandbox(["--token", "jira-cli-token"]);
    expect(lines[0]).toMatch(/^Jira sandbox listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).toBe("token: jira-cli-token");
    expect(lines[2]).toBe("email: sandbox@example.com");
    const url = lines[0]!.replace("Jira sandbox listening on ", "");
    const auth = Buffer.from("sandbox@example.com:jira-cli-token").toString("base64");
    const res = await fetch(`${url}/rest/api/3/myself`, {
      headers: { authorization: `Basic ${auth}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { accountId: string }).accountId).toBe("acc-sandbox");
    // The CLI default is Jira Cloud's real burst limits.
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    const exited = exitCode(child);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("generates a token when none is given and stops on SIGINT", async () => {
    const { child, lines } = await startSandbox(["--rate-limits", "off"]);
    expect(lines[1]).toMatch(/^token: [0-9a-f]{32}$/);
    const exited = exitCode(child);
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });

  it("rejects a bad rate-limit spec with exit 2", async () => {
    const r = await runCliProcess(["sandbox", "jira", "--rate-limits", "gets=lots"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--rate-limits");
  });

  it("serves Data Center with --deployment datacenter and bounds startAt paging by --max-result-window", async () => {
    const { child, lines } = await startSandbox(
      [
        "--deployment",
        "datacenter",
        "--rate-limits",
        "off",
        "--token",
        "dc-pat",
        "--max-result-window",
        "20",
      ],
      5,
    );
    expect(lines.slice(1)).toEqual([
      "token: dc-pat",
      "deployment: datacenter (REST v2; send the token as 'Authorization: Bearer')",
      "project: WID",
      "max result window: 20",
    ]);
    const url = lines[0]!.replace("Jira sandbox listening on ", "");
    const headers = { authorization: "Bearer dc-pat" };
    const info = await fetch(`${url}/rest/api/2/serverInfo`, { headers });
    expect(((await info.json()) as { deploymentType: string }).deploymentType).toBe("Server");
    const limit = await fetch(`${url}/rest/api/2/searchLimits/maxResultWindow`, { headers });
    expect(await limit.json()).toBe(20);
    const inside = await fetch(
      `${url}/rest/api/2/search?jql=project%3DWID&startAt=10&maxResults=10`,
      {
        headers,
      },
    );
    expect(inside.status).toBe(200);
    expect(((await inside.json()) as { maxResultWindow: number }).maxResultWindow).toBe(20);
    const deeper = await fetch(
      `${url}/rest/api/2/search?jql=project%3DWID&startAt=11&maxResults=10`,
      {
        headers,
      },
    );
    expect(deeper.status).toBe(400);
    expect(JSON.stringify(await deeper.json())).toContain("[20] but was [21]");
    const exited = exitCode(child);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it.each([
    [["--deployment", "datacenter", "--max-result-window", "0"], "must be a positive integer"],
    [["--deployment", "datacenter", "--max-result-window", "lots"], "must be a positive integer"],
    [["--max-result-window", "100"], "is a Jira Data Center sandbox option"],
  ])("rejects %j with exit 2", async (args, message) => {
    const r = await runCliProcess(["sandbox", "jira", ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--max-result-window ${message}`);
  });
});
