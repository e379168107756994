import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConflictResolvedError,
  InternalError,
  StateError,
  UsageError,
} from "../../../src/core/errors.js";
import type { ItemKind } from "../../../src/core/model.js";
import { processWorkerId } from "../../../src/core/worker-id.js";
import { openState, type StateLocation } from "../../../src/state/open-state.js";
import type { LeaseTiming } from "../../../src/state/postgres/pg-lease.js";
import type { LinkRecord, StateStore } from "../../../src/state/store.js";
import { buildStateForChildren, spawnBackendChild, type StateChild } from "./state-child.js";

/** A backend under the shared contract: where fresh states come from. */
export interface BackendUnderTest {
  readonly name: "sqlite" | "postgres";
  /** A fresh, empty state location (a new file, a new database). */
  fresh(): Promise<StateLocation>;
  /** PostgreSQL: short leases, so expiry is tested in seconds. */
  readonly lease?: LeaseTiming;
}

export function link(
  tinypmId: string,
  targetId: string,
  job = "w",
  kind: ItemKind = "story",
): LinkRecord {
  return {
    job,
    kind,
    tinypmId,
    targetSystem: "github",
    targetId,
    origin: "tinypm",
    base: {
      tinypm: { title: `t${tinypmId}` },
      target: { title: `t${tinypmId}` },
      tinypmHash: "h1",
      targetHash: "h2",
    },
    updatedAt: "2026-11-24T00:00:00.000Z",
  };
}

const intent = (originId: string, job = "w") =>
  ({
    job,
    kind: "story",
    originSystem: "tinypm",
    originId,
    targetSystem: "github",
    payloadHash: "p",
  }) as const;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function sameMeta(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function kill(c: StateChild): Promise<void> {
  c.process.kill("SIGKILL");
  await c.exited;
}

/**
 * The state contract both backends pass: the same calls give the same results, the same
 * transactions hold, a killed process loses nothing and duplicates nothing, and a job runs on
 * one process at a time.
 */
export function stateContract(backend: () => BackendUnderTest): void {
  let build: ReturnType<typeof buildStateForChildren>;
  beforeAll(() => {
    build = buildStateForChildren();
  });
  afterAll(() => {
    build.cleanup();
  });

  async function withStore<T>(fn: (s: StateStore, loc: StateLocation) => Promise<T>): Promise<T> {
    const loc = await backend().fresh();
    const s = await openState(loc, { lease: backend().lease });
    try {
      return await fn(s, loc);
    } finally {
      await s.close();
    }
  }

  /** A child process that opens `loc` and runs `code` (with `s` the open store). */
  function child(loc: StateLocation, code: string): StateChild {
    const options = JSON.stringify({ lease: backend().lease });
    return spawnBackendChild(
      build.stateUrl,
      `const s = await openState(${JSON.stringify(loc)}, ${options});\n${code}\nsetInterval(() => {}, 1000);`,
    );
  }

  describe("links and base snapshots", () => {
    it("finds a link by either id, keeps one item per target id, updates its base and deletes it", async () => {
      await withStore(async (s) => {
        await s.putLink(link("1", "7"));
        expect(await s.getLinkByTinypm("w", "story", "1")).toEqual(link("1", "7"));
        expect((await s.getLinkByTarget("w", "story", "7"))?.tinypmId).toBe("1");
        expect(await s.getLinkByTinypm("w", "task", "1")).toBeUndefined();
        await expect(s.putLink(link("2", "7"))).rejects.toThrow(InternalError);
        expect(await s.getLinkByTinypm("w", "story", "2")).toBeUndefined();
        await s.putLink({ ...link("1", "8"), parentTinypmId: "5" });
        expect(await s.getLinkByTarget("w", "story", "7")).toBeUndefined();
        expect((await s.getLinkByTinypm("w", "story", "1"))?.parentTinypmId).toBe("5");
        const base = {
          tinypm: { title: "new", n: [1, "ü"] },
          target: null,
          tinypmHash: "a",
          targetHash: "b",
        };
        await s.updateBase("w", "story", "1", base);
        expect((await s.getLinkByTinypm("w", "story", "1"))?.base).toEqual(base);
        await expect(s.updateBase("w", "story", "9", base)).rejects.toThrow(
          /No link for tinyPM story 9/,
        );
        await s.deleteLink("w", "story", "1");
        expect(await s.countLinks("w")).toBe(0);
      });
    });

    it("keeps a link's pending writes until its base is updated, and refuses them for no link", async () => {
      await withStore(async (s) => {
        await s.putLink(link("1", "7"));
        const writes = [
          {
            side: "tinypm",
            fields: { status: "ACCEPTED", estimate: null, labels: ["a", "ü"] },
            startedAt: "2026-11-24T10:00:01.000Z",
          },
          {
            side: "target",
            fields: { title: "new" },
            updatedAt: "2026-11-24T09:59:58Z",
            startedAt: "2026-11-24T10:00:01.000Z",
          },
        ] as const;
        await s.recordPendingWrites("w", "story", "1", writes);
        expect((await s.getLinkByTinypm("w", "story", "1"))?.pendingWrites).toEqual(writes);
        expect((await collect(s.links("w")))[0]?.pendingWrites).toEqual(writes);
        await expect(s.recordPendingWrites("w", "story", "9", writes)).rejects.toThrow(
          /No link for tinyPM story 9/,
        );
        // The base update clears them in the same statement; a transaction rolled back keeps them.
        await s.recordPendingWrites("w", "story", "1", writes.slice(1));
        await expect(
          s.transaction(async (tx) => {
            await tx.updateBase("w", "story", "1", link("1", "7").base);
            throw new Error("stop");
          }),
        ).rejects.toThrow("stop");
        expect((await s.getLinkByTinypm("w", "story", "1"))?.pendingWrites).toEqual(
          writes.slice(1),
        );
        await s.updateBase("w", "story", "1", link("1", "7").base);
        expect((await s.getLinkByTinypm("w", "story", "1"))?.pendingWrites).toBeUndefined();
        // A link put again (rebuilt, relinked) carries what it is given, none by default.
        await s.putLink({ ...link("1", "7"), pendingWrites: writes });
        expect((await s.getLinkByTinypm("w", "story", "1"))?.pendingWrites).toEqual(writes);
        await s.putLink(link("1", "7"));
        expect((await s.getLinkByTinypm("w", "story", "1"))?.pendingWrites).toBeUndefined();
        await s.recordPendingWrites("w", "story", "1", []);
        expect((await s.getLinkByTinypm("w", "story", "1"))?.pendingWrites).toBeUndefined();
      });
    });

    it("streams 1,200 links in key order while the caller deletes and updates them", async () => {
      await withStore(async (s) => {
        await s.transaction(async (tx) => {
          for (let i = 0; i < 1200; i += 1)
            await tx.putLink(link(String(i).padStart(4, "0"), `t${i}`));
          await tx.putLink(link("x", "tx", "other"));
          await tx.putLink(link("0001", "task-1", "w", "task"));
        });
        expect(await s.countLinks("w")).toBe(1201);
        const seen: string[] = [];
        for await (const l of s.links("w", "story")) {
          seen.push(l.tinypmId);
          if (Number(l.tinypmId) % 2 === 0) await s.deleteLink("w", "story", l.tinypmId);
          else await s.updateBase("w", "story", l.tinypmId, { ...l.base, tinypmHash: "seen" });
        }
        expect(seen).toHaveLength(1200);
        expect(seen).toEqual([...seen].sort());
        const rest = await collect(s.links("w"));
        expect(rest.map((l) => `${l.kind}:${l.tinypmId}`)).toContain("task:0001");
        expect(rest.filter((l) => l.kind === "story")).toHaveLength(600);
        expect(
          rest.filter((l) => l.kind === "story").every((l) => l.base.tinypmHash === "seen"),
        ).toBe(true);
      });
    });
  });

  it("keeps the identity of a target item beside its link", async () => {
    await withStore(async (s) => {
      const marker = { v: 1, job: "w", kind: "story", tinypmId: "1", instance: "i" } as never;
      expect(await s.getLinkIdentity("w", "story", "1")).toBeUndefined();
      await s.putLinkIdentity("w", "story", "1", { marker, meta: { points: 3 } });
      await s.putLinkIdentity("w", "story", "1", { marker, meta: { points: 5 } });
      expect(await s.getLinkIdentity("w", "story", "1")).toEqual({ marker, meta: { points: 5 } });
    });
  });

  it("keeps checkpoints per job and system, and refuses one that carries a secret", async () => {
    await withStore(async (s) => {
      await s.setCheckpoint("w", "github", { since: "a", etag: 'W/"1"' });
      await s.setCheckpoint("w", "github", { since: "b" });
      await s.setCheckpoint("w", "sync:w:tinypm", { cursor: 3 });
      expect(await s.getCheckpoint("w", "github")).toEqual({ since: "b" });
      expect(await s.getCheckpoint("w", "sync:w:tinypm")).toEqual({ cursor: 3 });
      expect(await s.getCheckpoint("v", "github")).toBeUndefined();
      await expect(s.setCheckpoint("w", "jira", { apiToken: "x" })).rejects.toThrow(
        /secret-like key apiToken/,
      );
      expect(await s.getCheckpoint("w", "jira")).toBeUndefined();
    });
  });

  describe("create intents", () => {
    it("records an intent once per origin, and confirming it stores the link and ends the intent together", async () => {
      await withStore(async (s) => {
        const id = await s.recordIntent(intent("1"));
        expect(await s.recordIntent({ ...intent("1"), payloadHash: "q" })).toBe(id);
        const other = await s.recordIntent(intent("2"));
        expect(other).not.toBe(id);
        expect(await s.pendingIntents("w")).toMatchObject([
          { id, originId: "1", payloadHash: "q" },
          { id: other, originId: "2" },
        ]);
        // A link of another item cannot confirm it: nothing is written, the intent stays.
        await expect(s.confirmIntent(id, link("2", "7"))).rejects.toThrow(/cannot be confirmed/);
        expect(await s.countLinks("w")).toBe(0);
        await s.confirmIntent(id, link("1", "7"));
        expect((await s.pendingIntents("w")).map((i) => i.id)).toEqual([other]);
        expect((await s.getLinkByTinypm("w", "story", "1"))?.targetId).toBe("7");
        // A confirm whose link is refused (target id taken) leaves the intent pending.
        await expect(s.confirmIntent(other, link("2", "7"))).rejects.toThrow(InternalError);
        expect((await s.pendingIntents("w")).map((i) => i.id)).toEqual([other]);
        await s.dropIntent(other);
        expect(await s.pendingIntents("w")).toEqual([]);
        expect(await s.integrityCheck()).toBe("ok");
      });
    });

    it("keeps each intent's anchor as written (recordIntent, recordIntents, claimImport), the latest on a rewrite", async () => {
      await withStore(async (s) => {
        const anchored = (originId: string, anchor?: string) => ({
          ...intent(originId),
          originSystem: "github" as const,
          targetSystem: "tinypm" as const,
          ...(anchor === undefined ? {} : { anchor }),
        });
        await s.recordIntent(anchored("1", '{"floor":4}'));
        await s.recordIntent(anchored("1", '{"floor":5}'));
        await s.recordIntents([anchored("2", '{"floor":6}'), anchored("3")]);
        await s.claimImport(anchored("4", '{"floor":7}'), "github:api.github.com/acme/api");
        const pending = await s.pendingIntents("w");
        expect(pending.map((i) => [i.originId, i.anchor])).toEqual([
          ["1", '{"floor":5}'],
          ["2", '{"floor":6}'],
          ["3", undefined],
          ["4", '{"floor":7}'],
        ]);
      });
    });

    it("confirms an intent with the identity the create wrote: link, identity and the intent's end together, or none of them", async () => {
      await withStore(async (s) => {
        const marker = { v: 1, job: "w", kind: "story", tinypmId: "1", instance: "i" } as never;
        const id = await s.recordIntent(intent("1"));
        const other = await s.recordIntent(intent("2"));
        await s.putLink(link("3", "8"));
        // Refused (the target id is another item's): no link, no identity, the intent stays.
        await expect(s.confirmIntent(other, link("2", "8"), { marker, meta: {} })).rejects.toThrow(
          /already linked to tinyPM 3/,
        );
        // Refused (the link is not the intent's item): the same.
        await expect(s.confirmIntent(id, link("2", "9"), { marker, meta: {} })).rejects.toThrow(
          /cannot be confirmed/,
        );
        expect(await s.getLinkByTinypm("w", "story", "2")).toBeUndefined();
        expect(await s.getLinkIdentity("w", "story", "2")).toBeUndefined();
        await s.confirmIntent(id, link("1", "7"), { marker, meta: { points: 3 } });
        expect(await s.getLinkByTinypm("w", "story", "1")).toEqual(link("1", "7"));
        expect(await s.getLinkIdentity("w", "story", "1")).toEqual({ marker, meta: { points: 3 } });
        // Without an identity, the one stored stays as it was.
        await s.putLink(link("1", "7"));
        expect(await s.getLinkIdentity("w", "story", "1")).toEqual({ marker, meta: { points: 3 } });
        // In a transaction that fails, none of it.
        await expect(
          s.transaction(async (tx) => {
            await tx.confirmIntent(other, link("2", "9"), { marker, meta: {} });
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect(await s.getLinkByTinypm("w", "story", "2")).toBeUndefined();
        expect(await s.getLinkIdentity("w", "story", "2")).toBeUndefined();
        expect((await s.pendingIntents("w")).map((i) => i.id)).toEqual([other]);
        await s.confirmIntent(other, link("2", "9"), { marker, meta: {} });
        expect(await s.pendingIntents("w")).toEqual([]);
        expect(await s.countLinks("w")).toBe(3);
        expect(await s.integrityCheck()).toBe("ok");
      });
    });

    it("leaves each create whole when a process confirming many with their identities is killed: a pending intent, or its link with its identity", async () => {
      const loc = await backend().fresh();
      const n = 400;
      const a = child(
        loc,
        `const ids = [];
         for (let i = 1; i <= ${n}; i++)
           ids.push(await s.recordIntent({ ...${JSON.stringify(intent("0"))}, originId: String(i) }));
         console.log("recorded");
         for (const [k, id] of ids.entries()) {
           const l = ${JSON.stringify(link("0", "0"))};
           const i = String(k + 1);
           await s.confirmIntent(id, { ...l, tinypmId: i, targetId: "g" + i },
             { marker: { v: 1, job: "w", kind: "story", tinypmId: i }, meta: { n: k } });
           if (k === 0) console.log("confirming");
         }
         console.log("all confirmed");`,
      );
      expect(await a.line()).toBe("recorded");
      expect(await a.line()).toBe("confirming");
      await kill(a);
      const s = await openState(loc, { lease: backend().lease });
      try {
        const pending = new Set((await s.pendingIntents("w")).map((i) => i.originId));
        // Each create is exactly one of: its intent pending (nothing else), or its link with its
        // identity and no intent.
        const seen: string[] = [];
        const whole: string[] = [];
        for (let i = 1; i <= n; i++) {
          const id = String(i);
          const l = await s.getLinkByTinypm("w", "story", id);
          const identity = await s.getLinkIdentity("w", "story", id);
          const state = pending.has(id)
            ? l === undefined && identity === undefined
              ? "pending"
              : "pending and written"
            : l?.targetId === `g${id}` && sameMeta(identity?.meta, { n: i - 1 })
              ? "confirmed"
              : "lost";
          seen.push(`${id} ${state}`);
          whole.push(`${id} ${state === "pending" ? "pending" : "confirmed"}`);
        }
        expect(seen).toEqual(whole);
        expect(seen.filter((x) => x.endsWith("confirmed")).length).toBeGreaterThanOrEqual(1);
        expect(await s.integrityCheck()).toBe("ok");
      } finally {
        await s.close();
      }
    });

    it("records a batch's intents at once: ids in order, each as recordIntent would, none when the transaction fails", async () => {
      await withStore(async (s) => {
        const first = await s.recordIntent(intent("1"));
        const ids = await s.recordIntents([
          intent("2"),
          { ...intent("1"), payloadHash: "q" },
          intent("3"),
          { ...intent("3"), payloadHash: "r" },
        ]);
        expect(ids[1]).toBe(first);
        expect(ids[3]).toBe(ids[2]);
        expect(new Set(ids).size).toBe(3);
        expect(await s.recordIntents([])).toEqual([]);
        const pending = await s.pendingIntents("w");
        expect(pending.map((i) => [i.id, i.originId, i.payloadHash])).toEqual(
          [
            [first, "1", "q"],
            [ids[0], "2", "p"],
            [ids[2], "3", "r"],
          ].sort((a, b) => Number(a[0]) - Number(b[0])),
        );
        await expect(
          s.transaction(async (tx) => {
            await tx.recordIntents([intent("4"), intent("5")]);
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect((await s.pendingIntents("w")).map((i) => i.originId).sort()).toEqual([
          "1",
          "2",
          "3",
        ]);
      });
    });

    it("keeps each batch of intents whole when the process recording them is killed", async () => {
      const loc = await backend().fresh();
      const size = 100;
      const a = child(
        loc,
        `for (let b = 0; ; b++) {
           const drafts = [];
           for (let i = 0; i < ${size}; i++)
             drafts.push({ ...${JSON.stringify(intent("0"))}, originId: b + "-" + i });
           await s.recordIntents(drafts);
           if (b === 0) console.log("recorded");
         }`,
      );
      expect(await a.line()).toBe("recorded");
      await kill(a);
      const s = await openState(loc, { lease: backend().lease });
      try {
        const batches = new Map<string, number>();
        for (const i of await s.pendingIntents("w")) {
          const b = i.originId.split("-")[0] ?? "";
          batches.set(b, (batches.get(b) ?? 0) + 1);
        }
        expect(batches.size).toBeGreaterThanOrEqual(1);
        expect([...batches.values()].filter((n) => n !== size)).toEqual([]);
      } finally {
        await s.close();
      }
    });

    it("keeps the pending intent of a process killed between record and confirm, and its link once confirmed", async () => {
      const loc = await backend().fresh();
      const a = child(
        loc,
        `console.log("intent " + (await s.recordIntent(${JSON.stringify(intent("1"))})));`,
      );
      const id = Number((await a.line()).split(" ")[1]);
      await kill(a);
      const b = child(
        loc,
        `await s.confirmIntent(${id}, ${JSON.stringify(link("1", "7"))});
         console.log("confirmed " + (await s.recordIntent(${JSON.stringify(intent("2"))})));`,
      );
      const second = await b.line();
      await kill(b);
      const s = await openState(loc, { lease: backend().lease });
      try {
        expect(second).toMatch(/^confirmed \d+$/);
        const pending = await s.pendingIntents("w");
        expect(pending.map((i) => i.originId)).toEqual(["2"]);
        expect((await s.getLinkByTinypm("w", "story", "1"))?.targetId).toBe("7");
        expect(await s.countLinks("w")).toBe(1);
        expect(await s.integrityCheck()).toBe("ok");
      } finally {
        await s.close();
      }
    });
  });

  describe("import claims", () => {
    const claim = (job: string, targetId: string) =>
      ({
        job,
        kind: "story",
        originSystem: "github",
        originId: targetId,
        targetSystem: "tinypm",
        payloadHash: "p",
      }) as const;
    const repo = "github:api.github.com/acme/web";

    it("lets one job of several claim each unmarked target item, with its intent in the same write", async () => {
      await withStore(async (s) => {
        // Three jobs race for 20 items of one repository (PostgreSQL: on several connections).
        const jobs = ["a", "b", "c"];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => String(i + 1)).flatMap((id) =>
            jobs.map(async (job) => ({ job, id, r: await s.claimImport(claim(job, id), repo) })),
          ),
        );
        const won = results.filter(({ r }) => r.intentId !== undefined);
        const owners = new Map(won.map(({ job, id }) => [id, job]));
        // One winner per item; every other job was told which one.
        expect(won).toHaveLength(20);
        expect(owners.size).toBe(20);
        const lost = results.filter(({ r }) => r.intentId === undefined);
        expect(lost.map(({ id, r }) => r.claimedBy === owners.get(id))).toEqual(
          lost.map(() => true),
        );
        expect(lost).toHaveLength(40);
        // Each winner holds exactly its intents; a loser recorded none.
        for (const job of jobs) {
          const mine = [...owners].filter(([, j]) => j === job).map(([id]) => id);
          expect((await s.pendingIntents(job)).map((i) => i.originId).sort()).toEqual(mine.sort());
        }
        const ids = ["1", "2", "99"];
        const read = await s.importClaims("github", repo, ids);
        expect(Object.fromEntries(read)).toEqual({ "1": owners.get("1"), "2": owners.get("2") });
        // The same number in another repository or on another system is another item.
        expect((await s.importClaims("github", "github:api.github.com/acme/api", ids)).size).toBe(
          0,
        );
        expect((await s.importClaims("jira", repo, ids)).size).toBe(0);
        const other = await s.claimImport(claim("b", "1"), "github:api.github.com/acme/api");
        expect(other.intentId).toBeGreaterThan(0);
        expect(await s.integrityCheck()).toBe("ok");
      });
    });

    it("keeps a claim once its import is linked, and releases it when the intent is dropped", async () => {
      await withStore(async (s) => {
        const first = await s.claimImport(claim("a", "7"), repo);
        expect(first.intentId).toBeGreaterThan(0);
        // Asking again (a rerun of the job) gives the same intent.
        expect((await s.claimImport(claim("a", "7"), repo)).intentId).toBe(first.intentId);
        expect(await s.claimImport(claim("b", "7"), repo)).toEqual({ claimedBy: "a" });
        await s.confirmIntent(first.intentId ?? 0, { ...link("30", "7", "a"), origin: "github" });
        expect(await s.claimImport(claim("b", "7"), repo)).toEqual({ claimedBy: "a" });
        // A create that never happened: the claim goes with its intent, another job may import.
        const second = await s.claimImport(claim("a", "8"), repo);
        await s.dropIntent(second.intentId ?? 0);
        expect((await s.importClaims("github", repo, ["7", "8"])).get("8")).toBeUndefined();
        const taken = await s.claimImport(claim("b", "8"), repo);
        expect(taken.intentId).toBeGreaterThan(0);
        expect(Object.fromEntries(await s.importClaims("github", repo, ["7", "8"]))).toEqual({
          "7": "a",
          "8": "b",
        });
        // Dropping a create towards the target touches no claim.
        await s.dropIntent(await s.recordIntent(intent("5", "a")));
        expect((await s.importClaims("github", repo, ["7", "8"])).size).toBe(2);
      });
    });

    it("lists the claims a job holds with what became of each (status)", async () => {
      await withStore(async (s) => {
        const shape = async (job: string) =>
          (await s.claimsOf(job)).map((c) => [c.targetId, c.kind, c.location, c.status]);
        const done = await s.claimImport(claim("a", "7"), repo);
        await s.confirmIntent(done.intentId ?? 0, { ...link("30", "7", "a"), origin: "github" });
        await s.claimImport(claim("a", "8"), repo);
        await s.claimImport(claim("b", "9"), repo);
        expect(await shape("a")).toEqual([
          ["7", "story", repo, "imported"],
          ["8", "story", repo, "importing"],
        ]);
        expect(await shape("b")).toEqual([["9", "story", repo, "importing"]]);
        const [first] = await s.claimsOf("a");
        expect(first?.targetSystem).toBe("github");
        expect(Date.parse(first?.claimedAt ?? "")).not.toBeNaN();
        // The link removed since (its tinyPM story deleted): the item stays the job's.
        await s.deleteLink("a", "story", "30");
        expect((await shape("a"))[0]).toEqual(["7", "story", repo, "unlinked"]);
        expect(await s.claimsOf("c")).toEqual([]);
      });
    });

    it("writes a claim and its intent together: a failed transaction leaves neither", async () => {
      await withStore(async (s) => {
        await expect(
          s.transaction(async (tx) => {
            await tx.claimImport(claim("a", "3"), repo);
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect((await s.importClaims("github", repo, ["3"])).size).toBe(0);
        expect(await s.pendingIntents("a")).toEqual([]);
        expect((await s.claimImport(claim("b", "3"), repo)).intentId).toBeGreaterThan(0);
      });
    });
  });

  it("coalesces run requests per job and forgets one only at the version a run read", async () => {
    await withStore(async (s) => {
      expect(await s.runRequests()).toEqual([]);
      const first = await s.requestRun("a", "webhook");
      expect(first).toMatchObject({ job: "a", version: 1, deliveries: 1, triggers: ["webhook"] });
      await s.requestRun("a", "webhook");
      const third = await s.requestRun("a", "manual");
      expect(third).toMatchObject({ version: 3, deliveries: 3, triggers: ["webhook", "manual"] });
      await s.requestRun("b", "webhook");
      expect((await s.runRequests()).map((r) => [r.job, r.deliveries])).toEqual([
        ["a", 3],
        ["b", 1],
      ]);
      // A run that read version 2 does not cover the delivery that raised it to 3.
      expect(await s.settleRunRequest("a", 2)).toBeUndefined();
      const settled = await s.settleRunRequest("a", 3);
      expect(settled).toMatchObject({ job: "a", version: 3, deliveries: 3 });
      expect(Date.parse(settled?.firstAt ?? "")).not.toBeNaN();
      expect((await s.runRequests()).map((r) => r.job)).toEqual(["b"]);
      // Settled twice: nothing left to forget.
      expect(await s.settleRunRequest("a", 3)).toBeUndefined();
      expect(await s.requestRun("a", "webhook")).toMatchObject({ version: 1, deliveries: 1 });
    });
  });

  it("counts every delivery recorded at once by several stores into one request", async () => {
    const loc = await backend().fresh();
    // SQLite: one process holds the file, its calls interleave; PostgreSQL: three workers.
    const many = backend().name === "sqlite" ? 1 : 3;
    const stores = await Promise.all(
      Array.from({ length: many }, () => openState(loc, { lease: backend().lease })),
    );
    try {
      await Promise.all(
        stores.flatMap((s) =>
          Array.from({ length: 15 / many }, () => s.requestRun("a", "webhook")),
        ),
      );
      const [only] = await stores[0]!.runRequests();
      expect(only).toMatchObject({ job: "a", version: 15, deliveries: 15 });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("commits a transaction's writes together, and none of them when it fails", async () => {
    await withStore(async (s) => {
      await s.transaction(async (tx) => {
        await tx.putLink(link("1", "7"));
        await tx.putLinkIdentity("w", "story", "1", {
          marker: { tinypmId: "1" } as never,
          meta: {},
        });
      });
      await expect(
        s.transaction(async (tx) => {
          await tx.putLink(link("2", "8"));
          await tx.setCheckpoint("w", "github", { since: "x" });
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(await s.getLinkByTinypm("w", "story", "2")).toBeUndefined();
      expect(await s.getCheckpoint("w", "github")).toBeUndefined();
      expect(await s.countLinks("w")).toBe(1);
      // Calls beside a transaction see either none or all of it.
      const seen: number[] = [];
      await Promise.all([
        s.transaction(async (tx) => {
          await tx.putLink(link("3", "9"));
          await new Promise((r) => setTimeout(r, 50));
          await tx.putLink(link("4", "10"));
        }),
        (async () => {
          await new Promise((r) => setTimeout(r, 10));
          seen.push(await s.countLinks("w"));
        })(),
      ]);
      expect([1, 3]).toContain(seen[0]);
      expect(await s.countLinks("w")).toBe(3);
    });
  });

  it("journals runs newest first, per job, and refuses to finish an unknown run", async () => {
    let t = Date.parse("2026-11-24T00:00:00Z");
    const loc = await backend().fresh();
    const s = await openState(loc, { now: () => new Date((t += 1000)), lease: backend().lease });
    try {
      const r1 = await s.startRun("w", "migrate");
      const r2 = await s.startRun("w", "sync");
      const r3 = await s.startRun("v", "sync");
      await s.finishRun(r1, {
        outcome: "ok",
        counts: { created: 2 },
        apiCalls: { github: { writes: 2 } },
      });
      expect((await s.runs()).map((r) => r.id)).toEqual([r3, r2, r1]);
      expect((await s.runs({ job: "w", limit: 1 })).map((r) => r.id)).toEqual([r2]);
      const [, , first] = await s.runs();
      expect(first).toMatchObject({
        id: r1,
        job: "w",
        mode: "migrate",
        outcome: "ok",
        pid: process.pid,
        host: hostname(),
        counts: { created: 2 },
      });
      // The process that ran it, told apart from another with the same pid on another host.
      const workerIds = new Set((await s.runs()).map((r) => r.workerId));
      expect(workerIds.size).toBe(1);
      const [workerId] = workerIds;
      expect(workerId).toBe(processWorkerId());
      expect(workerId).toMatch(new RegExp(`^${hostname()}:${String(process.pid)}:\\d{4}-`));
      expect((await s.workers()).map((w) => w.workerId)).toContain(workerId);
      expect(first?.apiCalls).toEqual({ github: { writes: 2 } });
      expect((await s.runs({ job: "w" }))[0]?.outcome).toBe("running");
      await expect(
        s.finishRun("nope", { outcome: "ok", counts: {}, apiCalls: {} }),
      ).rejects.toThrow(/No run nope/);
    } finally {
      await s.close();
    }
  });

  it("parks failures by either item id, counts attempts, and clears them", async () => {
    await withStore(async (s) => {
      const f = {
        runId: "r1",
        job: "w",
        kind: "story",
        side: "target",
        code: "payload_invalid",
        message: "bad",
      } as const;
      await s.parkFailure({ ...f, tinypmId: "1" });
      await s.parkFailure({ ...f, runId: "r2", tinypmId: "1", targetId: "7", message: "worse" });
      await s.parkFailure({ ...f, targetId: "8" });
      const list = await s.failures("w");
      expect(list).toHaveLength(2);
      expect(list[0]).toMatchObject({
        tinypmId: "1",
        targetId: "7",
        attempts: 2,
        runId: "r2",
        message: "worse",
      });
      expect(list[1]).toMatchObject({ targetId: "8", attempts: 1 });
      expect(list[1]?.tinypmId).toBeUndefined();
      await expect(s.parkFailure(f)).rejects.toThrow(/names no item/);
      await s.clearFailure("w", "story", "7");
      expect((await s.failures()).map((x) => x.targetId)).toEqual(["8"]);
      expect(await s.failures("v")).toEqual([]);
    });
  });

  it("keeps one open conflict per field, resolves it once, and marks it applied", async () => {
    await withStore(async (s) => {
      const c = {
        job: "w",
        kind: "story",
        tinypmId: "1",
        targetId: "7",
        field: "title",
        baseValue: "a",
        tinypmValue: "b",
        targetValue: "c",
      } as const;
      const id = await s.openConflict(c);
      expect(await s.openConflict({ ...c, targetValue: { x: [1] } })).toBe(id);
      const other = await s.openConflict({ ...c, field: "points", baseValue: 1 });
      expect(await s.conflicts({ status: "open" })).toMatchObject([
        { id, targetValue: { x: [1] }, status: "open", resolution: undefined },
        { id: other, baseValue: 1 },
      ]);
      const resolved = await s.resolveConflict(id, "target");
      expect(resolved).toMatchObject({ id, status: "resolved", resolution: "target" });
      expect(resolved.resolvedAt).toBeDefined();
      const refused = await s.resolveConflict(id, "tinypm").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ConflictResolvedError);
      expect((refused as ConflictResolvedError).message).toContain(
        `was already resolved at ${resolved.resolvedAt ?? "?"}: the target's value was taken`,
      );
      expect((await s.resolveConflict(id, "target")).resolvedAt).toBe(resolved.resolvedAt);
      expect((await s.resolveConflict(id, "tinypm", true)).resolution).toBe("tinypm");
      expect(await s.openConflict(c)).not.toBe(id); // a resolved conflict does not hold the field
      await s.markConflictApplied(id);
      expect((await s.conflicts({ job: "w", status: "resolved" }))[0]?.appliedAt).toBeDefined();
      await expect(s.resolveConflict(id, "tinypm")).rejects.toThrow(/already applied/);
      await expect(s.resolveConflict(999, "tinypm")).rejects.toThrow(UsageError);
      await expect(s.markConflictApplied(999)).rejects.toThrow(/no conflict with id 999/);

      // A conflict that no longer holds is closed with no side taken, and cannot be decided.
      await s.settleConflict(other);
      const settled = (await s.conflicts({ job: "w" })).find((x) => x.id === other);
      expect(settled).toMatchObject({ status: "resolved", resolution: undefined });
      expect(settled?.appliedAt).toBeDefined();
      expect(settled?.resolvedAt).toBeDefined();
      await expect(s.resolveConflict(other, "tinypm", true)).rejects.toThrow(/settled itself/);
      await s.settleConflict(other); // not open: nothing changes
      expect((await s.conflicts({ job: "w" })).find((x) => x.id === other)).toEqual(settled);
      // The field can be in conflict again, as a new conflict.
      expect(await s.openConflict({ ...c, field: "points", baseValue: 1 })).not.toBe(other);
    });
  });

  describe("the lease of a job", () => {
    it("keeps a job on one holder at a time, names it, and frees it on release", async () => {
      await withStore(async (s) => {
        const lease = await s.claimJob("w");
        lease.assertHeld();
        const refused = await s.claimJob("w").catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(StateError);
        expect((refused as StateError).code).toBe("state_locked");
        expect((refused as StateError).message).toContain(`process ${process.pid}`);
        const other = await s.claimJob("v");
        expect((await s.workers()).flatMap((w) => w.jobs)).toEqual(["v", "w"]);
        await lease.release();
        await lease.release();
        const again = await s.claimJob("w", { waitMs: 1000 });
        await again.release();
        await other.release();
        expect(lease.signal.aborted).toBe(false);
      });
    });

    it.runIf(backend().name === "sqlite")(
      "keeps a second process off the state file the first one holds, until the first one dies",
      async () => {
        const loc = await backend().fresh();
        const a = child(
          loc,
          `await s.claimJob("w"); const r = await s.startRun("w", "sync"); console.log("held " + r);`,
        );
        const runId = (await a.line()).split(" ")[1];
        // One process holds an SQLite file: a second one is refused at the door.
        const refused = await openState(loc).catch((e: unknown) => e);
        expect((refused as StateError).code).toBe("state_locked");
        expect((refused as StateError).message).toContain(`process ${a.process.pid}`);
        await kill(a);
        const s = await openState(loc);
        try {
          expect(s.tookOverLockFrom?.pid).toBe(a.process.pid);
          expect((await s.runs({ job: "w" }))[0]).toMatchObject({
            id: runId,
            outcome: "interrupted",
          });
        } finally {
          await s.close();
        }
      },
    );

    it.runIf(backend().name === "postgres")(
      "keeps a second process off a job the first one holds, until the first one dies",
      async () => {
        const loc = await backend().fresh();
        const a = child(
          loc,
          `await s.claimJob("w"); const r = await s.startRun("w", "sync"); console.log("held " + r);`,
        );
        const runId = (await a.line()).split(" ")[1];
        // Many processes share a PostgreSQL state; the job stays with its holder until it dies.
        const s = await openState(loc, { lease: backend().lease });
        try {
          const refused = await s.claimJob("w").catch((e: unknown) => e);
          expect((refused as StateError).code).toBe("state_locked");
          expect((refused as StateError).message).toContain(`process ${a.process.pid}`);
          const free = await s.claimJob("v");
          const workers = await s.workers();
          expect(workers.map((w) => [w.pid, w.jobs])).toEqual(
            expect.arrayContaining([
              [a.process.pid, ["w"]],
              [process.pid, ["v"]],
            ]),
          );
          expect((await s.liveHolder())?.pid).toBe(a.process.pid);
          await kill(a);
          const ttl = backend().lease?.ttlMs ?? 30_000;
          const started = Date.now();
          const taken = await s.claimJob("w", { waitMs: ttl * 4 });
          // Its process is gone from this host: the job is free at once, not when its lease
          // expires (a dead session would free it at once from another host too).
          expect(taken.takenOver?.reason).toMatch(/^(holder_dead|session_closed)$/);
          expect(Date.now() - started).toBeLessThan(ttl * 4);
          expect((await s.runs({ job: "w" }))[0]).toMatchObject({
            id: runId,
            outcome: "interrupted",
          });
          const after = await s.workers();
          expect(after.filter((w) => w.alive).map((w) => w.pid)).toEqual([process.pid]);
          // The dead worker stays listed for a while, dead and holding nothing: status and the
          // dashboard show the crash.
          expect(after.filter((w) => !w.alive).map((w) => [w.pid, w.jobs])).toEqual([
            [a.process.pid, []],
          ]);
          await taken.release();
          await free.release();
        } finally {
          await s.close();
        }
      },
    );
  });
}
