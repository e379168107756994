import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypm } from "../../src/adapters/registry.js";
import type { WorkItem } from "../../src/core/model.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { runCliProcess } from "./spawn.js";

/**
 * Issue #33: "the demo can show a board". `demo --board` migrates the generated project to the
 * GitHub sandbox with a Project (v2) board and prints the board as read back from the sandbox:
 * every story in the Status column its tinyPM status maps to, with its estimate. The demo's
 * project is generated with a fixed seed: the same one here tells what each story holds.
 */
const COLUMN: Record<string, string> = { PENDING: "Todo", ACCEPTED: "Done", REJECTED: "Won't do" };
let reference: ReferenceServer;
let stories: WorkItem[] = [];

beforeAll(async () => {
  reference = await startReferenceServer({
    generate: "stories=4,tasks=2,comments=1",
    seed: 7,
  });
  const tinypm = createTinypm({ baseUrl: reference.url, token: reference.token, projectId: 1 });
  try {
    for await (const s of tinypm.list({ kind: "story" })) stories.push(s);
  } finally {
    await tinypm.close();
  }
  stories = stories.sort((a, b) => Number(a.id) - Number(b.id));
});
afterAll(async () => {
  await reference.close();
});

describe("demo --board", () => {
  it("puts every story on a Project board in its status's column, with its estimate", async () => {
    const r = await runCliProcess(["demo", "--board", "--stories", "4"]);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toContain('Board "tinyPM board" (GitHub Project, read back): 4 stories');
    const board = r.stdout.slice(r.stdout.indexOf('Board "tinyPM board"'));
    const section = board.slice(0, board.indexOf("== 2."));
    // Each card under its column: the column is the line above it with 2 spaces of indent.
    const placed = new Map<string, string>();
    let column = "";
    for (const line of section.split("\n")) {
      const head = /^ {2}(\S.*) \(\d+\)$/u.exec(line);
      if (head !== null) column = head[1] ?? "";
      const card = /^ {4}#\d+ (.*)$/u.exec(line);
      if (card !== null) placed.set(card[1] ?? "", column);
    }
    expect(stories).toHaveLength(4);
    const seen = stories.map((s) => {
      const [text = "", where] = [...placed].find(([t]) => t.startsWith(s.title)) ?? [];
      return { title: s.title, where, estimate: /estimate (\d+)/u.exec(text)?.[1] };
    });
    expect(seen).toEqual(
      stories.map((s) => ({
        title: s.title,
        where: COLUMN[s.status] ?? "Todo",
        estimate: s.estimate === undefined ? undefined : String(s.estimate),
      })),
    );
    // Then the usual edit and sync, on the board's job.
    expect(r.stdout).toContain("== 3. Syncing both ways");
    expect(r.stdout).toMatch(/Totals: 2 update/);
  }, 120_000);

  it("refuses --board with a Jira target, saying why", async () => {
    const r = await runCliProcess(["demo", "--board", "--target", "jira"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--board puts the issues on a GitHub Project board");
  });
});
