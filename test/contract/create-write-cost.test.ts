import { describe, expect, it } from "vitest";
import type { WorkItemDraft } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { startJiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startGithubHarness } from "./github-setup.js";
import { closedAfterEach } from "../support/closed-after-each.js";

/**
 * What a tracker says its creates cost (`createWriteCost`, a dry run's estimate) is what they
 * cost: the writes the sandbox counts while the tracker creates the same drafts, stories first,
 * then their tasks, as a run's apply does. The one owner of each vendor's write-cost policy is
 * its adapter; this holds it to the adapter's own creates.
 */
const opened = closedAfterEach();

const draft = (kind: "story" | "task", n: number, status: string): WorkItemDraft => ({
  kind,
  title: `${kind} ${n}`,
  status,
  assignees: [],
  labels: [],
});

/** Creates the stories, then one task per task status under the first story, in plan order. */
async function createAll(
  tracker: Tracker,
  stories: readonly string[],
  tasks: readonly string[],
): Promise<void> {
  const made = await tracker.createMany(stories.map((s, i) => draft("story", i, s)));
  const parent = made[0];
  if (parent === undefined || parent instanceof Error) throw parent ?? new Error("no story");
  const done = await tracker.createMany(
    tasks.map((s, i) => ({ ...draft("task", i, s), parentId: parent.id })),
  );
  for (const r of [...made, ...done]) if (r instanceof Error) throw r;
}

const outline = (stories: readonly string[], tasks: readonly string[]) => [
  ...stories.map((status) => ({ kind: "story" as const, status })),
  ...tasks.map((status) => ({ kind: "task" as const, status })),
];

describe("a tracker's price of its creates", () => {
  it("on Jira: the probes, bulk calls and transitions the creates make", async () => {
    const sandbox = await startJiraSandbox();
    opened.push(sandbox);
    const tracker = createJiraTracker({
      baseUrl: sandbox.url,
      email: sandbox.email,
      token: sandbox.token,
      projectKey: sandbox.projectKey,
    });
    opened.push(tracker);
    const stories = [
      "To Do",
      ...Array<string>(4).fill("Done"),
      "In Progress",
      "In Progress",
      "Rejected",
      ...Array<string>(55).fill("To Do"),
      "Testing",
    ];
    const tasks = ["To Do", "Done", "Done", "Testing"];
    const priced = await tracker.createWriteCost(outline(stories, tasks));
    const before = sandbox.stats().writes;
    await createAll(tracker, stories, tasks);
    const made = sandbox.stats().writes - before;
    expect(made).toBeGreaterThan(stories.length / 50);
    expect(priced).toBe(made);
  }, 60_000);

  it("on GitHub: one create each, a close for a closed one, a link for a task", async () => {
    const h = await startGithubHarness();
    opened.push(h);
    const stories = ["open", "closed:completed", "open", "closed:not_planned"];
    const tasks = ["open", "closed:completed", "closed:duplicate"];
    const priced = await h.tracker.createWriteCost?.(outline(stories, tasks));
    const before = h.sandbox.stats().writes;
    await createAll(h.tracker, stories, tasks);
    expect(priced).toBe(h.sandbox.stats().writes - before);
  }, 60_000);
});
