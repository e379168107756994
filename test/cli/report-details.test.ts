import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

// What a real run's JSON report says about each item (issue #17's reports): creates list what
// they wrote and link to the new issue and to tinyPM; a story deleted in tinyPM keeps its title in
// the later report, and the mirrored close leaves one comment on the issue saying why.
interface Item {
  action: string;
  kind: string;
  title: string;
  tinypmId?: string;
  targetId?: string;
  writes?: { field: string; value: unknown }[];
  links?: { tinypm?: string; target?: string };
}
interface Report {
  items: Item[];
}

let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=3,tasks=1,comments=0");
  config = writeConfig(tmp.dir, servers);
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

let runs = 0;
const run = async (...args: string[]): Promise<Report> => {
  const out = join(tmp.dir, `report-${String(++runs)}.json`);
  const r = await runCliProcess(
    [...args, "--config", config, "--format", "json", "--out", out, "--log-level", "warn"],
    { env: servers.env },
  );
  if (r.code !== 0) throw new Error(`${args.join(" ")} exited ${String(r.code)}: ${r.stderr}`);
  return JSON.parse(readFileSync(out, "utf8")) as Report;
};

describe.each([
  ["gh", "github"],
  ["jr", "jira"],
] as const)("a real run's report (%s)", (job, kind) => {
  let created: Item[] = [];

  it("lists what each create wrote, with links to the new issue and to tinyPM", async () => {
    const report = await run("migrate", "--job", job);
    created = report.items.filter((i) => i.action === "create");
    // 3 stories with a task each; the Jira job runs after the GitHub one deleted a story.
    expect(created.length).toBe(job === "gh" ? 6 : 4);
    for (const item of created) {
      expect(item.links?.tinypm).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*\d+$/);
      // GitHub: the html_url; Jira: <site>/browse/KEY on the sandbox's own address.
      const target =
        kind === "github"
          ? /^https?:\/\/[^/]+\/.+\/issues\/\d+$/
          : new RegExp(`^${servers.jira.url}/browse/[A-Z]+-\\d+$`);
      expect(item.links?.target ?? `none for ${item.title}`).toMatch(target);
      expect(item.writes?.map((w) => w.field)).toContain("status");
    }
    const task = created.find((i) => i.kind === "task");
    expect(task?.writes?.find((w) => w.field === "parent")).toBeDefined();
  });

  it("keeps a deleted story's title and comments once on the closed issue", async () => {
    const story = created.find((i) => i.kind === "story");
    if (story?.tinypmId === undefined || story.targetId === undefined)
      throw new Error("no created story");
    servers.tinypm.store.deleteStory(Number(story.tinypmId));
    // A deletion is noticed by a run that reads all of tinyPM (the migration left the tiers).
    const report = await run("sync", "--job", job, "--full");
    const deleted = report.items.find((i) => i.action === "delete" && i.kind === "story");
    expect(deleted?.title).toBe(story.title);
    const again = await run("sync", "--job", job);
    expect(again.items.filter((i) => i.action === "delete")).toEqual([]);
    const bodies = await commentsOn(kind, story.targetId);
    const closing = bodies.filter((b) =>
      b.includes(`story #${story.tinypmId} was deleted in tinyPM`),
    );
    expect(closing).toHaveLength(1);
    expect(closing[0]).toContain(`job ${job}`);
  });
});

async function commentsOn(kind: "github" | "jira", id: string): Promise<string[]> {
  if (kind === "github") {
    const g = servers.github;
    const res = await fetch(`${g.url}/repos/${g.owner}/${g.repo}/issues/${id}/comments`, {
      headers: { authorization: `Bearer ${g.token}` },
    });
    return ((await res.json()) as { body: string }[]).map((c) => c.body);
  }
  const j = servers.jira;
  const auth = Buffer.from(`${j.email}:${j.token}`).toString("base64");
  const res = await fetch(`${j.url}/rest/api/2/issue/${id}/comment`, {
    headers: { authorization: `Basic ${auth}` },
  });
  const body = (await res.json()) as { comments: { body: unknown }[] };
  return body.comments.map((c) => (typeof c.body === "string" ? c.body : JSON.stringify(c.body)));
}
