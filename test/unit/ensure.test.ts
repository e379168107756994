import { describe, expect, it } from "vitest";
import { createMemoryTracker } from "../../src/adapters/memory/index.js";
import { PayloadInvalidError, RemoteUnavailableError } from "../../src/core/errors.js";
import type { WorkItem, WorkItemDraft } from "../../src/core/model.js";
import type { GateEvent } from "../../src/core/request-gate.js";
import { createGate } from "../../src/gate/gate.js";
import { createLanes } from "../../src/gate/lanes.js";
import { createVirtualClock } from "../../src/gate/virtual-clock.js";
import { ensure } from "../../src/sync/apply/ensure.js";

const POLICY = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxTotalMs: 60_000 };
const lost = (): RemoteUnavailableError =>
  new RemoteUnavailableError("socket hang up", { system: "github", operation: "create" });

const draft: WorkItemDraft = {
  kind: "story",
  title: "Login",
  description: "",
  status: "open",
  assignees: [],
  labels: [],
};

/** The memory tracker behind a real gate and lanes; `create` fails as `script` says, per call. */
function world(script: ("made-then-lost" | "lost" | "refused" | "ok")[]) {
  const tracker = createMemoryTracker({ system: "github" });
  const clock = createVirtualClock();
  const events: GateEvent[] = [];
  const gate = createGate({
    system: "github",
    limits: {},
    policy: POLICY,
    clock,
    random: () => 0.5,
  }).forRun({ onEvent: (e) => events.push(e) });
  const lanes = createLanes({ limits: { github: { concurrency: 4 } }, gates: { github: gate } });
  const ctx = { lanes, targetSystem: "github" as const };
  let creates = 0;
  let looks = 0;
  const create = async (): Promise<WorkItem> => {
    const step = script[Math.min(creates++, script.length - 1)];
    if (step === "lost") throw lost();
    if (step === "refused")
      throw new PayloadInvalidError("bad field", { system: "github", operation: "create" });
    const made = await tracker.create(draft);
    if (step === "made-then-lost") throw lost();
    return made;
  };
  const find = async (): Promise<WorkItem | undefined> => {
    looks++;
    const all: WorkItem[] = [];
    for await (const item of tracker.list({ kind: "story" })) all.push(item);
    return all.find((i) => i.title === draft.title);
  };
  const step = { name: 'create story "Login"', create, find };
  return {
    ctx,
    step,
    tracker,
    gate,
    clock,
    events,
    count: () => ({ creates, looks, items: tracker.snapshot().length }),
  };
}

describe("ensure: look up, then create — never twice", () => {
  it("takes the item a lost answer made, without creating again or counting a retry", async () => {
    const w = world(["made-then-lost", "ok"]);
    const got = await ensure(w.ctx, "target", w.step);
    expect(got.found).toBe(true);
    expect(w.count()).toEqual({ creates: 1, looks: 1, items: 1 });
    expect(w.gate.counters().retries).toBe(0);
    expect(w.events.filter((e) => e.type === "retry")).toEqual([]);
  });

  it("creates again, after the gate's backoff, only when the look finds nothing", async () => {
    const w = world(["lost", "ok"]);
    const started = w.clock.now();
    const got = await ensure(w.ctx, "target", w.step);
    expect(got.found).toBe(false);
    expect(w.count()).toEqual({ creates: 2, looks: 1, items: 1 });
    // One retry loop: the gate's policy (full jitter at 0.5 of 100 ms), its count, its event.
    expect(w.clock.now() - started).toBe(50);
    expect(w.gate.counters().retries).toBe(1);
    expect(w.events.filter((e) => e.type === "retry")).toEqual([
      expect.objectContaining({ name: 'create story "Login"', attempt: 1, delayMs: 50 }),
    ]);
  });

  it("gives up at the end of the gate's policy, having made nothing twice", async () => {
    const w = world(["lost"]);
    await expect(ensure(w.ctx, "target", w.step)).rejects.toBeInstanceOf(RemoteUnavailableError);
    // 3 attempts in all (the policy's), each looked for after it failed.
    expect(w.count()).toEqual({ creates: 3, looks: 3, items: 0 });
    expect(w.gate.counters().retries).toBe(2);
  });

  it("looks again, under the gate's turns, when the look itself failed ambiguously", async () => {
    const w = world(["made-then-lost", "ok"]);
    let failLook = true;
    const find = async (): Promise<WorkItem | undefined> => {
      if (failLook) {
        failLook = false;
        throw lost();
      }
      return w.step.find();
    };
    const got = await ensure(w.ctx, "target", { ...w.step, find });
    expect(got.found).toBe(true);
    expect(w.count()).toEqual({ creates: 1, looks: 1, items: 1 });
    expect(w.gate.counters().retries).toBe(1);
  });

  it("never repeats or looks after a refusal", async () => {
    const w = world(["refused", "ok"]);
    await expect(ensure(w.ctx, "target", w.step)).rejects.toBeInstanceOf(PayloadInvalidError);
    expect(w.count()).toEqual({ creates: 1, looks: 0, items: 0 });
  });

  it("looks first when an earlier attempt may have made it, and creates only if not", async () => {
    const w = world(["ok"]);
    await w.tracker.create(draft);
    const again = await ensure(w.ctx, "target", { ...w.step, lookFirst: true });
    expect(again.found).toBe(true);
    expect(w.count()).toEqual({ creates: 0, looks: 1, items: 1 });
    const fresh = world(["ok"]);
    const made = await ensure(fresh.ctx, "target", { ...fresh.step, lookFirst: true });
    expect(made.found).toBe(false);
    expect(fresh.count()).toEqual({ creates: 1, looks: 1, items: 1 });
  });

  it("runs a create that looks itself (a tracker's ensure) again after an ambiguous failure", async () => {
    const w = world(["made-then-lost", "ok"]);
    let runs = 0;
    const ensureIt = async (): Promise<WorkItem> => {
      runs++;
      return (await w.step.find()) ?? w.step.create();
    };
    const got = await ensure(w.ctx, "target", { name: "ensure iteration", create: ensureIt });
    expect(got.found).toBe(false);
    expect(runs).toBe(2);
    expect(w.count().items).toBe(1);
  });
});
