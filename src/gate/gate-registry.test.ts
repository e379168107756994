import { describe, expect, it } from "vitest";
import type { GateRequest } from "../core/request-gate.js";
import { firstTimeWarned, openSharedGate, tokenLimits, type TokenUse } from "./gate-registry.js";
import { createVirtualClock } from "./virtual-clock.js";

const owner = { system: "github" as const, baseUrl: "http://127.0.0.1:1", token: "tok-a" };
const use = (job: string, limits: TokenUse["limits"], token = owner.token): TokenUse => ({
  job,
  owner: { ...owner, token },
  limits,
});

describe("tokenLimits", () => {
  it("gives two jobs of one token the strictest of each limit, with one warning naming both", () => {
    const a = { concurrency: 8, writesPerMinute: 80, writesPerHour: 500 };
    const b = { concurrency: 4, writesPerMinute: 20, writesPerHour: 500 };
    const uses = [
      use("fast", a),
      use("slow", b),
      use("elsewhere", { writesPerMinute: 1 }, "tok-b"),
    ];
    const seenByFast = tokenLimits(owner, a, uses);
    const seenBySlow = tokenLimits(owner, b, uses);
    expect(seenByFast.limits).toEqual({ concurrency: 4, writesPerMinute: 20, writesPerHour: 500 });
    expect(seenBySlow.limits).toEqual(seenByFast.limits);
    expect(seenByFast.warning).toContain('Jobs "fast" and "slow"');
    expect(seenByFast.warning).toContain("concurrency, writesPerMinute");
    expect(seenByFast.warning).toContain("writesPerMinute 20");
    expect(seenByFast.warning).not.toContain("tok-a");
    expect(seenBySlow.warning).toBe(seenByFast.warning);
    const text = seenByFast.warning ?? "";
    expect(firstTimeWarned(text)).toBe(true);
    expect(firstTimeWarned(text)).toBe(false);
  });

  it("leaves the limits as configured, without a warning, when the jobs agree or use other tokens", () => {
    const limits = { writesPerMinute: 80 };
    const agreed = tokenLimits(owner, limits, [use("a", limits), use("b", limits)]);
    expect(agreed).toEqual({ limits });
    const apart = tokenLimits(owner, limits, [
      use("a", limits),
      use("b", { writesPerMinute: 5 }, "tok-b"),
    ]);
    expect(apart).toEqual({ limits });
  });

  it("paces the shared gate at the strictest job's limit whichever job opens it first", async () => {
    const clock = createVirtualClock(0);
    const uses = [use("fast", { writesPerMinute: 60 }), use("slow", { writesPerMinute: 2 })];
    const first = openSharedGate(
      owner,
      tokenLimits(owner, { writesPerMinute: 60 }, uses).limits,
      {
        maxWaitMs: Infinity,
      },
      { clock },
    );
    const second = openSharedGate(
      owner,
      tokenLimits(owner, { writesPerMinute: 2 }, uses).limits,
      {
        maxWaitMs: Infinity,
      },
      { clock },
    );
    const at: number[] = [];
    const write: GateRequest<void> = {
      system: "github",
      kind: "write",
      name: "w",
      idempotent: false,
      send: () => {
        at.push(clock.now());
        return Promise.resolve();
      },
    };
    await first.request(write);
    await second.request(write);
    await first.request(write);
    expect(at).toEqual([0, 30_000, 60_000]);
    first.close();
    second.close();
  });
});

describe("openSharedGate across runs", () => {
  const write = (clock: { now(): number }, at: number[]): GateRequest<void> => ({
    system: "github",
    kind: "write",
    name: "w",
    idempotent: false,
    send: () => {
      at.push(clock.now());
      return Promise.resolve();
    },
  });

  it("keeps a token's windows after its last run closes: the next job's writes count the last one's", async () => {
    const clock = createVirtualClock(0);
    const me = { ...owner, token: "tok-runs" };
    const at: number[] = [];
    const first = openSharedGate(me, { writesPerMinute: 2 }, { maxWaitMs: Infinity }, { clock });
    await first.request(write(clock, at));
    await first.request(write(clock, at));
    first.close();
    const second = openSharedGate(me, { writesPerMinute: 2 }, { maxWaitMs: Infinity }, { clock });
    await second.request(write(clock, at));
    second.close();
    // A new gate would have sent the third write at once.
    expect(at).toEqual([0, 30_000, 60_000]);
  });

  it("rebuilds an idle gate for other limits (a reloaded config)", async () => {
    const clock = createVirtualClock(0);
    const me = { ...owner, token: "tok-idle" };
    const at: number[] = [];
    const first = openSharedGate(me, { writesPerMinute: 1 }, { maxWaitMs: Infinity }, { clock });
    await first.request(write(clock, at));
    first.close();
    // Other limits (a reloaded config): a new gate, empty windows.
    const relaxed = openSharedGate(me, { writesPerMinute: 60 }, { maxWaitMs: Infinity }, { clock });
    await relaxed.request(write(clock, at));
    relaxed.close();
    expect(at).toEqual([0, 0]);
  });
});
