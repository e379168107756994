import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateError } from "../../core/errors.js";
import { openSqliteState } from "../../state/sqlite-state.js";
import type { LinkRecord, StateStore } from "../../state/store.js";
import type { CreateAction } from "../plan/plan-types.js";
import { confirmGroup, type PendingConfirm } from "./confirm-group.js";

let dir: string;
let state: StateStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "confirm-group-"));
  state = await openSqliteState({ path: join(dir, "state.db") });
});
afterEach(async () => {
  await state.close();
  rmSync(dir, { recursive: true, force: true });
});

function link(tinypmId: string, targetId = `gh-${tinypmId}`): LinkRecord {
  return {
    job: "w",
    kind: "story",
    tinypmId,
    targetSystem: "github",
    targetId,
    origin: "tinypm",
    base: { tinypm: "{}", target: "{}", tinypmHash: "a", targetHash: "b" },
    updatedAt: "2026-11-24T12:00:00.000Z",
  };
}

/** A create of tinyPM story `id` whose intent is recorded, ready to confirm. */
async function created(id: string, targetId?: string): Promise<PendingConfirm> {
  const intentId = await state.recordIntent({
    job: "w",
    kind: "story",
    originSystem: "tinypm",
    originId: id,
    targetSystem: "github",
    payloadHash: "h",
  });
  const action = { type: "create", kind: "story", title: id } as unknown as CreateAction;
  return { intentId, link: link(id, targetId), action };
}

const none = (): Promise<void> => Promise.resolve();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * `inner`, whose transactions the test can wait for: a background commit is awaited as such,
 * where polling for its links a bounded number of times failed on a slow enough machine.
 */
function watchCommits(inner: StateStore): {
  store: StateStore;
  /** Resolves once the `n`th transaction (from 1) has ended, committed or not. */
  ended: (n: number) => Promise<void>;
} {
  const ends: Promise<unknown>[] = [];
  let began = (): void => undefined;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      if (name !== "transaction") return Reflect.get(target, name, receiver) as unknown;
      return (work: Parameters<StateStore["transaction"]>[0]) => {
        const end = target.transaction(work);
        ends.push(end.catch(() => undefined));
        began();
        return end;
      };
    },
  });
  const ended = async (n: number): Promise<void> => {
    while (ends.length < n)
      await new Promise<void>((resolve) => {
        began = resolve;
      });
    await ends[n - 1];
  };
  return { store, ended };
}

describe("group commit of create confirmations", () => {
  it("buffers until the group is full, then commits it whole without waiting for a flush", async () => {
    const { store, ended } = watchCommits(state);
    const group = confirmGroup(store, { size: 3, maxWaitMs: 60_000, onRefused: none });
    await group.add(await created("1"));
    await group.add(await created("2"));
    expect(await state.countLinks("w")).toBe(0);
    expect(await state.pendingIntents("w")).toHaveLength(2);
    await group.add(await created("3"));
    // The full group commits in the background: no flush, no timer (maxWaitMs is a minute).
    await ended(1);
    expect(await state.countLinks("w")).toBe(3);
    expect(await state.pendingIntents("w")).toEqual([]);
    await group.add(await created("4"));
    expect(await state.countLinks("w")).toBe(3);
    await group.flush();
    expect(await state.countLinks("w")).toBe(4);
  });

  it("lets the run go on while a full group commits, and waits for it when the next one is full", async () => {
    // Each transaction waits for its gate to open, as a slow PostgreSQL commit would.
    const gates: (() => void)[] = [];
    const slow = new Proxy(state, {
      get(target, name, receiver) {
        if (name === "transaction")
          return async (work: Parameters<StateStore["transaction"]>[0]) => {
            await new Promise<void>((open) => gates.push(open));
            return target.transaction(work);
          };
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const group = confirmGroup(slow, { size: 2, maxWaitMs: 60_000, onRefused: none });
    await group.add(await created("1"));
    await group.add(await created("2")); // full: its commit waits on gate 1, the run goes on
    await group.add(await created("3"));
    let fourthBack = false;
    const fourth = group.add(await created("4")).then(() => (fourthBack = true));
    for (let i = 0; i < 200 && gates.length < 1; i++) await sleep(5);
    await sleep(20);
    // The second full group waits for the first: the run is held back, nothing is lost.
    expect(fourthBack).toBe(false);
    expect(gates).toHaveLength(1);
    gates[0]?.();
    await fourth;
    expect(await state.countLinks("w")).toBe(2);
    for (let i = 0; i < 200 && gates.length < 2; i++) await sleep(5);
    gates[1]?.();
    await group.flush();
    expect(await state.countLinks("w")).toBe(4);
    expect(await state.pendingIntents("w")).toEqual([]);
  });

  it("a fatal error of a background commit stops the run at its next confirmation", async () => {
    let lost = false;
    const guarded = new Proxy(state, {
      get(target, name, receiver) {
        if (name === "transaction" && lost)
          return () => Promise.reject(new StateError("state_unavailable", "lease lost"));
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const group = confirmGroup(guarded, { size: 2, maxWaitMs: 60_000, onRefused: none });
    lost = true;
    await group.add(await created("1"));
    await group.add(await created("2")); // its commit fails in the background
    await expect(
      (async () => {
        for (let i = 0; i < 200; i++) {
          await group.add(await created(String(3 + i)));
          await sleep(5);
        }
      })(),
    ).rejects.toThrow("lease lost");
    expect(await state.countLinks("w")).toBe(0);
  });

  it("commits a group whose oldest confirmation waited maxWaitMs, without a further call", async () => {
    const { store, ended } = watchCommits(state);
    const group = confirmGroup(store, { size: 50, maxWaitMs: 20, onRefused: none });
    await group.add(await created("1"));
    await ended(1);
    expect(await state.countLinks("w")).toBe(1);
    expect(await state.pendingIntents("w")).toEqual([]);
  });

  it("a confirmation the state refuses is reported alone; the rest of its group commits", async () => {
    await state.putLink(link("9", "gh-taken"));
    const refused: string[] = [];
    const group = confirmGroup(state, {
      size: 50,
      maxWaitMs: 60_000,
      onRefused: async (c, error) => {
        refused.push(`${c.link.tinypmId}: ${(error as Error).message}`);
        await Promise.resolve();
      },
    });
    await group.add(await created("1"));
    await group.add(await created("2", "gh-taken"));
    await group.add(await created("3"));
    await group.flush();
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/^2: /);
    expect((await state.getLinkByTinypm("w", "story", "1"))?.targetId).toBe("gh-1");
    expect((await state.getLinkByTinypm("w", "story", "3"))?.targetId).toBe("gh-3");
    // The refused create's intent stays: the next run settles it by the item's marker.
    expect((await state.pendingIntents("w")).map((i) => i.originId)).toEqual(["2"]);
  });

  it("a state that cannot record fails the flush and keeps every intent of the group", async () => {
    let lost = false;
    const guarded = new Proxy(state, {
      get(target, name, receiver) {
        if (name === "transaction" && lost) {
          return () => Promise.reject(new StateError("state_unavailable", "lease lost"));
        }
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const group = confirmGroup(guarded, { size: 50, maxWaitMs: 60_000, onRefused: none });
    await group.add(await created("1"));
    await group.add(await created("2"));
    lost = true;
    await expect(group.flush()).rejects.toThrow("lease lost");
    expect(await state.countLinks("w")).toBe(0);
    expect(await state.pendingIntents("w")).toHaveLength(2);
  });
});
