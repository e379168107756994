import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tracker } from "../../src/core/tracker.js";
import { startWorld, type World } from "./world.js";

// A migration into a target with a bulk create sends each run of creates while the run before
// it still writes its items' follow-ups (comments, time entries, links): the request gate always
// has work. 55 stories with one comment each: two bulk runs (50 and 5). The first comment of the
// first run is held until the target sees the second bulk call; a migration that finishes each
// run before sending the next one only sends it once that comment is let go (after 10 s).
describe("a migration's create runs overlap (Jira bulk create)", () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ target: "jira", generate: "stories=55,tasks=0,comments=1" });
  });
  afterAll(() => world.close());

  it("sends the next run while the previous run's comments are written", async () => {
    const events: string[] = [];
    let bulkCalls = 0;
    let secondRunSent: () => void = () => undefined;
    const secondRun = new Promise<"sent">((resolve) => {
      secondRunSent = () => {
        resolve("sent");
      };
    });
    let held = false;
    const wrap = (tracker: Tracker): Tracker => {
      const createMany: Tracker["createMany"] = async (drafts, opts) => {
        bulkCalls++;
        events.push(`bulk ${drafts.length}`);
        if (drafts.length === 5) secondRunSent();
        return tracker.createMany(drafts, opts);
      };
      const addComment: Tracker["addComment"] = async (ref, comment, opts) => {
        if (!held) {
          held = true;
          events.push("comment held");
          const timeout = new Promise<"timeout">((r) =>
            setTimeout(() => {
              r("timeout");
            }, 10_000),
          );
          events.push(`comment released: ${await Promise.race([secondRun, timeout])}`);
        }
        return tracker.addComment(ref, comment, opts);
      };
      return new Proxy(tracker, {
        get: (target, prop, receiver) =>
          prop === "createMany"
            ? createMany
            : prop === "addComment"
              ? addComment
              : (Reflect.get(target, prop, receiver) as unknown),
      });
    };
    const report = await world.run("migrate", { wrapTarget: wrap });
    expect(report.summary).toMatchObject({ created: 55, failed: 0, conflicts: 0 });
    // The first run's last bulk call (after the adapter's single creates that learn the
    // workflow), the held comment, then the second run while it is held.
    expect(bulkCalls).toBeGreaterThanOrEqual(2);
    expect(events.indexOf("comment held")).toBeLessThan(events.indexOf("bulk 5"));
    expect(events).toContain("comment released: sent");

    // Everything arrived once: a sync after it has nothing to do.
    const again = await world.run("sync");
    expect(again.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
  }, 60_000);
});
