/**
 * python-jira (Debian's python3-jira, pycontribs/jira) against the Data Center sandbox, unmodified:
 * a widely used client with explicit Server/DC code paths (`token_auth=` PAT, `/search` with
 * startAt, users by name, `{"name": …}` assignees). Skipped, with the reason, only when
 * `python3 -c 'import jira'` fails (.ci/run installs it).
 */
import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

const SCRIPT = fileURLToPath(new URL("../python/jira_dc_client.py", import.meta.url));

/**
 * The interpreter that imports `jira`: `python3` on the PATH, else Debian's own /usr/bin/python3
 * (where `apt-get install python3-jira` puts it when a pyenv or venv python3 comes first).
 */
function pythonWithJira(): { python: string } | { missing: string } {
  const tried: string[] = [];
  for (const python of ["python3", "/usr/bin/python3"]) {
    try {
      execFileSync(python, ["-c", "import jira"], { stdio: "pipe" });
      return { python };
    } catch {
      tried.push(python);
    }
  }
  return {
    missing: `${tried.map((p) => `${p} -c 'import jira'`).join(" and ")} failed; install python3-jira`,
  };
}

const found = pythonWithJira();
const missing = "missing" in found ? found.missing : undefined;
const python = "python" in found ? found.python : "python3";

function run(url: string, pat: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      python,
      [SCRIPT, url],
      {
        env: { ...process.env, JIRA_DC_PAT: pat, NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const text = stdout.trim().split("\n").pop() ?? "";
        if (error !== null) {
          reject(new Error(`python-jira failed: ${text}\n${stderr}`));
          return;
        }
        resolve(JSON.parse(text) as Record<string, unknown>);
      },
    );
  });
}

describe.skipIf(missing !== undefined)("python-jira against the Jira Data Center sandbox", () => {
  // A skip names its reason: the skipped test's title carries it.
  let sandbox: JiraSandbox;
  beforeAll(async () => {
    // A small search window (Jira 11's maxResultWindow): python-jira's batches stay inside it,
    // and a page past it is refused.
    sandbox = await startJiraSandbox({
      deployment: "datacenter",
      host: "127.0.0.1",
      port: 0,
      maxResultWindow: 9,
    });
  });
  afterAll(() => sandbox.close());

  it(`creates, pages a search, assigns by name, comments, transitions, logs work and plans sprints${missing === undefined ? "" : ` (skipped: ${missing})`}`, async () => {
    const seen = await run(sandbox.url, sandbox.token);
    expect(seen).toMatchObject({
      deploymentType: "Server",
      is_cloud: false,
      myself: "sandbox",
      total: 7,
      first_page: ["WID-1", "WID-2", "WID-3"],
      second_page: ["WID-4", "WID-5", "WID-6"],
      assignee: "bob",
      users: ["carol"],
      comment: "A comment with [~bob] and ||h||\n|c|",
      comment_author: "sandbox",
      description: "h2. Notes\n*bold* and {{mono}}",
      status: "In Progress",
      worklog_seconds: 5400,
      worklogs: ["Pairing on {{code}}"],
      sprints: ["Sprint 1, the first"],
      property: 7,
      refused: 401,
    });
    expect((seen.version as number[])[0]).toBe(10);
    // Every issue, in order, read in pages of three (startAt 0, 3, 6): one page of python-jira's
    // default 100 would have passed the window of 9 and been refused.
    expect(seen.all).toEqual(["WID-1", "WID-2", "WID-3", "WID-4", "WID-5", "WID-6", "WID-7"]);
    expect(seen.past_window).toBe(400);
    expect(seen.past_window_text).toContain("[9] but was [11]");
    const [sprint] = seen.sprint_field as string[];
    expect(sprint).toMatch(
      /^com\.atlassian\.greenhopper\.service\.sprint\.Sprint@[0-9a-f]+\[id=1,rapidViewId=1,state=FUTURE,name=Sprint 1, the first,startDate=<null>,.*goal=<null>,/,
    );
  }, 90_000);
});
