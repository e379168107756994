import { describe, expect, it } from "vitest";
import { createServerClock } from "./server-clock.js";

describe("a service's clock from its Date headers", () => {
  it("is unknown before an answer with a date", () => {
    const clock = createServerClock(() => 0);
    clock.observe(undefined);
    clock.observe("not a date");
    expect(clock.now()).toBeUndefined();
  });

  it("follows a service whose clock is ahead, never past it, closer with each answer", () => {
    // The service is 90.7 s ahead of the host.
    let host = Date.UTC(2026, 10, 28, 9, 0, 0, 100);
    const service = (): number => host + 90_700;
    const header = (): string => new Date(service()).toUTCString(); // whole seconds
    const clock = createServerClock(() => host);
    clock.observe(header());
    const first = clock.now()?.getTime() ?? 0;
    expect(first).toBeLessThanOrEqual(service());
    expect(service() - first).toBeLessThan(1_000);
    // Answers at other fractions of a second narrow the estimate.
    for (const step of [130, 120, 370, 410]) {
      host += step;
      clock.observe(header());
    }
    const later = clock.now()?.getTime() ?? 0;
    expect(later).toBeLessThanOrEqual(service());
    expect(service() - later).toBeLessThan(100);
  });

  it("follows a service whose clock is behind the host", () => {
    let host = Date.UTC(2026, 10, 28, 9, 0, 0, 0);
    const clock = createServerClock(() => host);
    clock.observe(new Date(host - 3_600_000).toUTCString());
    host += 5_000;
    expect(clock.now()?.toISOString()).toBe(new Date(host - 3_600_000).toISOString());
  });

  it("forgets a clock that was set back, once its answers are old enough", () => {
    let host = Date.UTC(2026, 10, 28, 9, 0, 0, 0);
    const clock = createServerClock(() => host);
    clock.observe(new Date(host + 60_000).toUTCString());
    for (let i = 0; i < 32; i++) {
      host += 1_000;
      clock.observe(new Date(host).toUTCString());
    }
    expect(clock.now()?.getTime()).toBe(host);
  });
});
