import { describe, expect, it } from "vitest";
import { eachConcurrently } from "./concurrent.js";

const tick = () => new Promise((r) => setImmediate(r));

describe("eachConcurrently", () => {
  it("keeps up to `concurrency` items in flight and does every item once", async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    await eachConcurrently(
      [...Array(20).keys()],
      async (n) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await tick();
        inFlight--;
        done.push(n);
      },
      4,
    );
    expect(most).toBe(4);
    expect([...done].sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
  });

  it("stops on the first error: nothing more starts, those in flight finish, the error is rethrown", async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = eachConcurrently(
      [...Array(20).keys()],
      async (n) => {
        started.push(n);
        await tick();
        if (n === 2) throw new Error("fatal at 2");
        await tick();
        finished.push(n);
      },
      4,
    );
    await expect(run).rejects.toThrow("fatal at 2");
    expect(started).toEqual([0, 1, 2, 3]);
    expect(finished.sort()).toEqual([0, 1, 3]);
  });

  it("does nothing for no items", async () => {
    await expect(eachConcurrently([], () => Promise.reject(new Error("never")))).resolves.toBe(
      undefined,
    );
  });
});
