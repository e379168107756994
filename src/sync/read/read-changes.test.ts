import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { ChangePage, Checkpoint, Tracker } from "../../core/tracker.js";
import { createLanes } from "../../gate/lanes.js";
import { tinypmStory } from "../../../test/support/work-items.js";
import { readChanges } from "./read.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * A feed's pages each carry a checkpoint that may hold its whole window (Jira's hashes of the
 * issues in it): the read keeps the items and the last checkpoint, not every page's.
 */
describe("readChanges", () => {
  const PAGES = 6;

  /** A feed of PAGES pages of one item each, its checkpoints followed by weak references. */
  function feed(): { tracker: Tracker; aliveAtLast: () => number } {
    const refs: WeakRef<Checkpoint>[] = [];
    let atLast = -1;
    const changes = async function* (): AsyncGenerator<ChangePage> {
      for (let n = 1; n <= PAGES; n++) {
        if (n === PAGES) {
          // A turn of the event loop, then what the read still holds of the earlier pages.
          await new Promise((resolve) => setImmediate(resolve));
          gc();
          gc();
          atLast = refs.filter((r) => r.deref() !== undefined).length;
        }
        const checkpoint: Checkpoint = { seen: "x".repeat(1000 * n), page: n };
        refs.push(new WeakRef(checkpoint));
        yield {
          changes: [{ kind: "upsert", item: tinypmStory(String(n)) }],
          checkpoint,
          complete: false,
        };
      }
    };
    return { tracker: { changes } as unknown as Tracker, aliveAtLast: () => atLast };
  }

  it("keeps every item and the last page's checkpoint, and no other page's", async () => {
    const { tracker, aliveAtLast } = feed();
    const read = await readChanges({
      lanes: createLanes({ limits: { github: { concurrency: 1 } } }),
      system: "github",
      tracker,
      from: undefined,
      extra: [],
    });
    expect(read.items.map((i) => i.id)).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(read.checkpoint).toMatchObject({ page: PAGES });
    expect(read.complete).toBe(false);
    // As the last page comes, at most the page before it is in hand.
    expect(aliveAtLast()).toBeLessThanOrEqual(1);
  });
});
