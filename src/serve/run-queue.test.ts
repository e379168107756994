import { describe, expect, it } from "vitest";
import { createRunQueue, type QueuedRun } from "./run-queue.js";

/** A queue whose runs end only when the test says so. */
function controlled() {
  const started: QueuedRun[] = [];
  const finishers: (() => void)[] = [];
  const queue = createRunQueue({
    execute: (run) =>
      new Promise<void>((resolve) => {
        started.push(run);
        finishers.push(resolve);
      }),
  });
  const finishNext = async (): Promise<void> => {
    finishers.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, started, finishNext };
}

describe("the run queue", () => {
  it("runs one job at a time and coalesces triggers that come while it runs into one follow-up", async () => {
    const { queue, started, finishNext } = controlled();
    queue.trigger("a", "startup");
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(1);
    queue.trigger("a", "schedule");
    queue.trigger("a", "webhook", new Set(["7"]));
    queue.trigger("a", "manual");
    expect(queue.status("a").running?.triggers).toEqual(["startup"]);
    expect(queue.status("a").pending?.triggers).toEqual(["schedule", "webhook", "manual"]);
    await finishNext();
    expect(started).toHaveLength(2);
    // A whole-job trigger absorbs the webhook's item selection.
    expect(started[1]).toEqual({
      job: "a",
      items: undefined,
      triggers: ["schedule", "webhook", "manual"],
    });
    await finishNext();
    await queue.idle();
    expect(started).toHaveLength(2);
  });

  it("unions the items of webhook triggers and runs jobs in the order asked, never two at once", async () => {
    const { queue, started, finishNext } = controlled();
    queue.trigger("a", "startup");
    await new Promise((resolve) => setImmediate(resolve));
    queue.trigger("b", "webhook", new Set(["1"]));
    queue.trigger("b", "webhook", new Set(["2", "1"]));
    queue.trigger("a", "webhook", new Set(["9"]));
    expect(started).toHaveLength(1);
    await finishNext();
    expect(started[1]).toMatchObject({ job: "b", triggers: ["webhook"] });
    expect([...(started[1]?.items ?? [])].sort()).toEqual(["1", "2"]);
    expect(started).toHaveLength(2);
    await finishNext();
    expect(started[2]).toMatchObject({ job: "a", items: new Set(["9"]) });
    await finishNext();
  });

  it("runs exclusive tasks between runs, and stop drops what waits", async () => {
    const { queue, started, finishNext } = controlled();
    queue.trigger("a", "startup");
    await new Promise((resolve) => setImmediate(resolve));
    queue.trigger("b", "schedule");
    let ranWhile: number | undefined;
    const task = queue.exclusive(() => {
      ranWhile = started.length;
      return "done";
    });
    await finishNext();
    expect(await task).toBe("done");
    // The task ran after the first run ended and before the waiting one started.
    expect(ranWhile).toBe(1);
    const stopping = queue.stop();
    await finishNext();
    await stopping;
    queue.trigger("c", "manual");
    await queue.idle();
    expect(started.map((r) => r.job)).toEqual(["a", "b"]);
  });

  it("goes on after a run fails", async () => {
    const seen: string[] = [];
    const queue = createRunQueue({
      execute: (run) => {
        seen.push(run.job);
        return run.job === "bad" ? Promise.reject(new Error("boom")) : Promise.resolve();
      },
    });
    queue.trigger("bad", "startup");
    queue.trigger("good", "startup");
    await new Promise((resolve) => setImmediate(resolve));
    await queue.idle();
    expect(seen).toEqual(["bad", "good"]);
  });
});
