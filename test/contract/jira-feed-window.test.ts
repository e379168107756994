import { describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import type { ChangePage, Checkpoint } from "../../src/core/tracker.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { personRequest, searchCount } from "./jira-sandbox-helpers.js";
import { closedAfterEach } from "../support/closed-after-each.js";

/**
 * Issue #36: the Jira feed's overlap window follows the last complete search, not only the newest
 * issue. After a burst of writes and no change since, a read more than the overlap later asks
 * for nothing the previous read had already seen — and an issue the index had not yet shown
 * when a search began is still fed by the next read.
 */
type JiraTracker = ReturnType<typeof createJiraTracker>;

const opened = closedAfterEach();

let clock = 0;

async function start(
  deployment: "cloud" | "datacenter",
): Promise<{ sandbox: JiraSandbox; tracker: JiraTracker }> {
  clock = Date.parse("2026-03-02T10:00:00Z");
  // Search lags writes by a second, as Jira Cloud's index does; the adapter's own writes are
  // reconciled, a person's are not.
  const sandbox = await startJiraSandbox({ now: () => clock, deployment, consistency: "eventual" });
  opened.push(sandbox);
  return { sandbox, tracker: trackerOf(sandbox) };
}

/** An adapter as one run's process makes it (its clock learnt from this run's answers). */
function trackerOf(sandbox: JiraSandbox): JiraTracker {
  const tracker = createJiraTracker({
    baseUrl: sandbox.url,
    email: sandbox.email,
    token: sandbox.token,
    projectKey: sandbox.projectKey,
    deployment: sandbox.deployment,
    pageSize: 2,
  });
  opened.push(tracker);
  return tracker;
}

/**
 * Reads the feed from `cp` as a sync's run does, in a process of its own: the issues it fed, its
 * last checkpoint and the searches it made.
 */
async function read(
  sandbox: JiraSandbox,
  cp: Checkpoint | undefined,
): Promise<{ titles: string[]; checkpoint: Checkpoint; searches: number }> {
  const tracker = trackerOf(sandbox);
  const s0 = searchCount(sandbox);
  const pages: ChangePage[] = [];
  for await (const page of tracker.changes(cp)) pages.push(page);
  const last = pages.at(-1);
  if (last === undefined) throw new Error("the feed gave no page");
  return {
    titles: pages.flatMap((p) => p.changes.map((c) => (c.kind === "upsert" ? c.item.title : ""))),
    checkpoint: last.checkpoint,
    searches: searchCount(sandbox) - s0,
  };
}

/** A burst of five issues, a second apart (three pages of two). */
async function burst(tracker: JiraTracker): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const item = await tracker.create({
      kind: "story",
      title: `Story ${String(i)}`,
      status: "To Do",
      assignees: [],
      labels: [],
    });
    keys.push(item.id);
    clock += 1000;
  }
  return keys;
}

describe.each(["cloud", "datacenter"] as const)("Jira feed window (%s)", (deployment) => {
  it("a read more than the overlap after the last change asks for nothing seen", async () => {
    const { sandbox, tracker } = await start(deployment);
    const first = await read(sandbox, undefined);
    await burst(tracker);
    // Within the overlap of the burst: its five issues are listed again (and fed once).
    const within = await read(sandbox, first.checkpoint);
    expect(within.titles).toEqual(["Story 1", "Story 2", "Story 3", "Story 4", "Story 5"]);
    expect(within.searches).toBe(3);
    // Two minutes later, nothing changed: the read before began within the burst's overlap, so
    // this one lists the burst again (and feeds nothing); its own start is past the overlap.
    clock += 120_000;
    const later = await read(sandbox, within.checkpoint);
    expect(later.titles).toEqual([]);
    expect(later.searches).toBe(3);
    const quiet = await read(sandbox, later.checkpoint);
    expect(quiet.titles).toEqual([]);
    // One search, answering no issue: before, every quiet read listed the burst again (3).
    expect(quiet.searches).toBe(1);
    // The site's clock when the search began, as its `Date` headers (whole seconds) tell it and
    // the host's clock carries it on (this sandbox's clock stands still meanwhile).
    expect(Math.abs(Number(later.checkpoint.readMs) - clock)).toBeLessThan(1000);
    expect(Number(quiet.checkpoint.readMs)).toBeGreaterThanOrEqual(Number(later.checkpoint.readMs));
  });

  it("still feeds an issue the index had not shown yet when the search began", async () => {
    const { sandbox, tracker } = await start(deployment);
    const [key = ""] = await burst(tracker);
    clock += 120_000;
    const settled = await read(sandbox, undefined);
    const quiet = await read(sandbox, settled.checkpoint);
    // A person renames an issue; the next read comes half a second later, before the index
    // shows it (lag 1 s): nothing is fed, and the read's own start moves the window.
    await personRequest(sandbox, "PUT", `/issue/${key}`, {
      fields: { summary: "A person's title" },
    });
    clock += 500;
    const early = await read(sandbox, quiet.checkpoint);
    expect(early.titles).toEqual([]);
    clock += 120_000;
    const next = await read(sandbox, early.checkpoint);
    expect(next.titles).toEqual(["A person's title"]);
  });

  it("takes a checkpoint stored before the window followed the search", async () => {
    const { sandbox, tracker } = await start(deployment);
    await burst(tracker);
    clock += 120_000;
    const { checkpoint } = await read(sandbox, undefined);
    const { readMs, ...old } = checkpoint;
    expect(readMs).toBeTypeOf("number");
    // An older version's checkpoint has no `readMs`: the window hangs on the newest issue.
    const again = await read(sandbox, old);
    expect(again.titles).toEqual([]);
    expect(again.searches).toBe(3);
    expect(again.checkpoint.readMs).toBeTypeOf("number");
  });
});
