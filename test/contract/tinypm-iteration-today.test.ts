import { afterEach, describe, expect, it } from "vitest";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import { startReferenceServer } from "../../src/reference-server/index.js";
import { formatShortDate } from "../../src/reference-server/xml-write.js";

// Issue #37: tinyPM's dates are calendar days of its server's time zone. The reference server
// picks the current iteration by its local day; the adapter judged an iteration active by the
// UTC day. Around midnight, in a zone far from UTC, the two named different iterations. One rule
// now: the local day, on both. Checked in a zone ahead of UTC and one behind it, each at an hour
// whose UTC day is not the local one, on the first local day of a sprint and the last of one.
const saved = process.env.TZ;
afterEach(() => {
  if (saved === undefined) delete process.env.TZ;
  else process.env.TZ = saved;
});

/** The instant of a local wall-clock time in the current TZ. */
const local = (y: number, m: number, d: number, h: number): Date => new Date(y, m - 1, d, h);

describe.each([
  // 01:00 local is the day before in UTC (UTC+14): the first local day of a sprint.
  { zone: "Pacific/Kiritimati", hour: 1, dayOffset: 7 },
  // 23:00 local is the day after in UTC (UTC−8 in January): the last local day of a sprint.
  { zone: "America/Los_Angeles", hour: 23, dayOffset: 6 },
])("in $zone", ({ zone, hour, dayOffset }) => {
  it("the adapter's active iteration is the reference server's current one", async () => {
    process.env.TZ = zone;
    // Generated on 2026-01-10 (local noon): Sprint 3 runs 01-03 to 01-16, Sprint 4 from 01-17.
    let clock = local(2026, 1, 10, 12);
    const server = await startReferenceServer({
      generate: "stories=2,tasks=0,comments=0",
      today: () => clock,
    });
    const at = local(2026, 1, 10 + dayOffset, hour);
    expect(formatShortDate(at)).not.toBe(at.toISOString().slice(0, 10)); // a day apart
    clock = at;
    const tracker = createTinypmTracker({
      baseUrl: server.url,
      token: server.token,
      projectId: 1,
      now: () => clock,
    });
    try {
      const current = server.store.currentIteration(1, formatShortDate(clock));
      expect(current?.name).toBe(dayOffset === 7 ? "Sprint 4" : "Sprint 3");
      const active = (await tracker.listIterations()).filter((i) => i.state === "active");
      expect(active.map((i) => i.name)).toEqual([current?.name]);
    } finally {
      await tracker.close();
      await server.close();
    }
  });
});
