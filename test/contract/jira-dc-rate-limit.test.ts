/**
 * Jira Data Center's per-user token bucket, adapter against sandbox over HTTP on one virtual
 * clock: the request gate reads `X-RateLimit-Remaining`, `-FillRate` and `-Interval-Seconds`
 * from each answer and, once the bucket is empty, holds the next request until a token is back,
 * so a paced run meets no 429.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import type { GateEvent } from "../../src/core/request-gate.js";
import { createGate } from "../../src/gate/gate.js";
import { createVirtualClock } from "../../src/gate/virtual-clock.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

const T0 = Date.parse("2026-11-02T09:00:00.000Z");

describe("Jira adapter on Data Center: rate-limit headers pace the gate", () => {
  const clock = createVirtualClock(T0);
  let offset = 0;
  let sandbox: JiraSandbox;
  beforeAll(async () => {
    sandbox = await startJiraSandbox({
      deployment: "datacenter",
      rateLimits: "max=3,fill=1/2s",
      now: () => clock.now() + offset,
    });
    const res = await fetch(`${sandbox.url}/rest/api/2/issue`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        fields: { project: { key: "WID" }, issuetype: { name: "Story" }, summary: "Paced" },
      }),
    });
    if (res.status !== 201) throw new Error(`creating the story answered ${res.status}`);
    offset += 60_000; // a full bucket again
  });
  afterAll(() => sandbox.close());

  it("holds each request after the bucket empties for one token's refill, and meets no 429", async () => {
    const events: GateEvent[] = [];
    const gate = createGate({ system: "jira", limits: {}, clock }).forRun({
      onEvent: (e) => events.push(e),
    });
    const tracker = createJiraTracker({
      baseUrl: sandbox.url,
      email: "",
      token: sandbox.token,
      projectKey: sandbox.projectKey,
      deployment: "datacenter",
      gate,
    });
    try {
      const started = clock.now();
      for (let i = 0; i < 4; i++) {
        const item = await tracker.get({ kind: "story", id: "WID-1" });
        expect(item?.title).toBe("Paced");
      }
      const requests = events.filter((e) => e.type === "request");
      expect(requests.length).toBeGreaterThan(4);
      expect(requests.every((e) => e.status === 200)).toBe(true);
      expect(sandbox.stats().byStatus["429"]).toBeUndefined();
      // Three tokens carry the first three requests; each later one waits 2 s for its token.
      const waits = events.filter((e) => e.type === "wait_start");
      expect(waits.length).toBe(requests.length - 3);
      expect(waits.every((e) => e.reason === "service")).toBe(true);
      // Requests and waits are named by the paths Data Center serves (REST v2), not Cloud's.
      const names = [...requests, ...waits].map((e) => e.name);
      expect(names.filter((n) => n.includes("/rest/api/3/"))).toEqual([]);
      expect(names.filter((n) => n === "GET /rest/api/2/issue/{key} WID-1").length).toBe(
        4 + waits.length,
      );
      expect(clock.now() - started).toBe(2_000 * (requests.length - 3));
    } finally {
      await tracker.close();
    }
  });
});
