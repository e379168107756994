/**
 * `plan` after a tinyPM description edit, through the built CLI, on both targets: every format
 * shows the word diff of the visible text and a line saying whether the target's rich content
 * (a person's issue template on GitHub, a person's ADF with a table, a panel and a code block on
 * Jira) is kept; an edit that cannot be placed says what would be lost. Nothing is written.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget, createTinypm, type TargetConnection } from "../../src/adapters/registry.js";
import type { Tracker } from "../../src/core/tracker.js";
import { reportSchema } from "../../src/report/schema.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

const TEMPLATE = readFileSync(
  new URL("../fixtures/rich-text/github-issue-template.md", import.meta.url),
  "utf8",
).trimEnd();
const ADF: unknown = JSON.parse(
  readFileSync(new URL("../fixtures/rich-text/jira-description.json", import.meta.url), "utf8"),
);
const ADDED = "One more line from tinyPM.";

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  "&quot;": '"',
  "&#39;": "'",
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
};

interface JsonDescription {
  toSide: string;
  diff: { op: string; text: string }[];
  rich?: { outcome: string; kept: number; rewritten: number; removed: number; lost: unknown[] };
}
interface JsonItem {
  action: string;
  descriptions?: JsonDescription[];
}

/**
 * An edit of a table cell: GitHub rewrites the row as Markdown (nothing lost); on Jira the cell
 * holds a mention tinyPM's text cannot carry, so the default `richText: merge` parks that cell
 * only and writes every other change (the line appended by the test before, still to write: a
 * plan writes nothing).
 */
const CELL_EDIT = {
  gh: {
    from: "| Firefox | fails  |",
    to: "| Firefox | fails on 128 |",
    line: /GitHub rich content kept \(\d+ blocks kept as written, 1 rewritten, 0 removed\)/,
  },
  jr: {
    from: "| Drain queue | @Bob    |",
    to: "| Drain queue | @Bob, @Carol |",
    line: /Jira rich content would be lost \(block 4, row 2, cell 2 "@Bob": cell \(row 2, column 2\): mention @Bob\): that unit is parked as a conflict, every other change written \(richText: merge\)/,
  },
} as const;

describe.each([
  { job: "gh", name: "GitHub" },
  { job: "jr", name: "Jira" },
] as const)("plan after a tinyPM description edit on $name", ({ job, name }) => {
  let servers: Servers;
  let config: string;
  let tinypm: Tracker;
  let target: Tracker;
  let targetId: string;
  const tmp = tempDir();

  const cli = async (...args: string[]) => {
    const r = await runCliProcess([...args, "--config", config, "--job", job], {
      env: servers.env,
    });
    if (r.code !== 0) throw new Error(`${args.join(" ")} exited ${String(r.code)}: ${r.stderr}`);
    return r;
  };
  const plan = (format: string) => cli("plan", "--format", format);
  const description = async (): Promise<string> =>
    (await tinypm.get({ kind: "story", id: "1" }))?.description ?? "";
  const setDescription = async (text: string): Promise<void> => {
    await tinypm.update({ kind: "story", id: "1" }, { set: { description: text } });
  };

  beforeAll(async () => {
    servers = await startServers("stories=1,tasks=0,comments=0");
    config = writeConfig(tmp.dir, servers);
    const connection: TargetConnection =
      job === "gh"
        ? {
            type: "github",
            tokenEnv: "GITHUB_TOKEN",
            importApi: false,
            baseUrl: servers.github.url,
            owner: servers.github.owner,
            repo: servers.github.repo,
            token: servers.github.token,
          }
        : {
            type: "jira",
            emailEnv: "JIRA_EMAIL",
            tokenEnv: "JIRA_TOKEN",
            baseUrl: servers.jira.url,
            project: servers.jira.projectKey,
            email: servers.jira.email,
            token: servers.jira.token,
          };
    tinypm = createTinypm({
      baseUrl: servers.tinypm.url,
      token: servers.tinypm.token,
      projectId: 1,
    });
    target = createTarget(connection);
    await cli("migrate");
    const items = [];
    for await (const item of target.list({ kind: "story" })) items.push(item);
    if (items.length !== 1) throw new Error(`expected one migrated story, got ${items.length}`);
    targetId = items[0]?.id ?? "";
    // A person writes a rich description on the target; a sync brings it to tinyPM.
    if (job === "gh") {
      await target.update({ kind: "story", id: targetId }, { set: { description: TEMPLATE } });
    } else {
      const s = servers.jira;
      const res = await fetch(`${s.url}/rest/api/3/issue/${targetId}`, {
        method: "PUT",
        headers: {
          authorization: `Basic ${Buffer.from(`${s.email}:${s.token}`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ fields: { description: ADF } }),
      });
      if (res.status !== 204) throw new Error(`the sandbox refused the ADF: ${res.status}`);
    }
    await cli("sync");
    await setDescription(`${await description()}\n\n${ADDED}`);
  });
  afterAll(async () => {
    await tinypm.close();
    await target.close();
    await servers.close();
    tmp.cleanup();
  });

  it("json: the word diff adds the line, the rest unchanged; the rich content is kept", async () => {
    const writesBefore = (job === "gh" ? servers.github : servers.jira).stats().writes;
    const r = await plan("json");
    const report: unknown = JSON.parse(r.stdout);
    expect(reportSchema.safeParse(report).success).toBe(true);
    const items = (report as { items: JsonItem[] }).items.filter((i) => i.action === "update");
    expect(items).toHaveLength(1);
    const [d] = items[0]?.descriptions ?? [];
    expect(d?.toSide).toBe("target");
    expect(d?.diff.filter((p) => p.op !== "same")).toEqual([
      { op: "added", text: expect.stringContaining(ADDED) as string },
    ]);
    expect(d?.diff.map((p) => p.text).join("")).toContain(ADDED);
    expect(d?.rich).toMatchObject({ outcome: "kept", rewritten: 0, removed: 0, lost: [] });
    expect(d?.rich?.kept).toBeGreaterThan(3);
    // A plan writes nothing.
    expect((job === "gh" ? servers.github : servers.jira).stats().writes).toBe(writesBefore);
  });

  it("text: the word diff and the rich-content line", async () => {
    const r = await plan("text");
    expect(r.stdout).toContain(`description → ${name}, word diff:`);
    expect(r.stdout).toContain(ADDED);
    expect(r.stdout).toMatch(
      new RegExp(
        `${name} rich content kept \\(\\d+ blocks kept as written, 0 rewritten, 0 removed\\)`,
      ),
    );
  });

  it("markdown: the added words in <ins> inside the quoted diff, and the rich-content line", async () => {
    const r = await plan("markdown");
    expect(r.stdout).toContain(`Description → ${name}, word diff:`);
    expect(r.stdout).toMatch(/^ {2}> .*<ins>[^<]*One more line from tinyPM[^<]*<\/ins>/m);
    expect(r.stdout).toMatch(
      new RegExp(`${name} rich content kept \\(\\d+ blocks kept as written`),
    );
  });

  it("html: the added words in <ins>, and the rich-content line", async () => {
    const r = await plan("html");
    expect(r.stdout).toMatch(/<ins>[^<]*One more line from tinyPM\.[^<]*<\/ins>/);
    expect(r.stdout).toMatch(
      new RegExp(
        `<div class="rich muted">${name} rich content kept \\(\\d+ blocks kept as written`,
      ),
    );
  });

  it("an edit of a table cell: what happens to the rich content is said in every format", async () => {
    const edit = CELL_EDIT[job];
    const now = await description();
    expect(now).toContain(edit.from);
    await setDescription(now.replace(edit.from, edit.to));
    expect((await plan("text")).stdout).toMatch(edit.line);
    const unescaped = (s: string): string =>
      s.replace(/&quot;|&#39;|&lt;|&gt;|&amp;/g, (e) => HTML_ENTITIES[e] ?? e);
    expect(unescaped((await plan("html")).stdout)).toMatch(edit.line);
    // The Markdown report breaks mentions with a zero-width space, so that posting it pings no one.
    expect((await plan("markdown")).stdout.replace(/\u200b/g, "")).toMatch(edit.line);
    const report = JSON.parse((await plan("json")).stdout) as { items: JsonItem[] };
    const [d] = report.items.find((i) => (i.descriptions ?? []).length > 0)?.descriptions ?? [];
    expect(d?.rich?.outcome).toBe(job === "gh" ? "kept" : "parked");
    expect(d?.diff.filter((p) => p.op !== "same").map((p) => p.op)).toContain("added");
  });
});
