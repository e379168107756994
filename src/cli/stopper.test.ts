import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createStopper } from "./stopper.js";

function setup() {
  const controller = new AbortController();
  const stderr = new PassThrough();
  let text = "";
  stderr.on("data", (d: Buffer) => (text += d.toString()));
  const exits: number[] = [];
  const stopper = createStopper({
    controller,
    stderr,
    exit: (code) => exits.push(code),
    graceMs: 700,
  });
  return { controller, stopper, exits, text: () => text };
}

describe("createStopper", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aborts the run at the first signal and lets the command wind down within the grace time", async () => {
    vi.useFakeTimers();
    const { controller, stopper, exits } = setup();
    const stopped = stopper.waitForStop();
    stopper.onSignal("SIGTERM");
    expect(controller.signal.aborted).toBe(true);
    await expect(stopped).resolves.toBe("SIGTERM");
    await expect(stopper.waitForStop()).resolves.toBe("SIGTERM");
    vi.advanceTimersByTime(699);
    expect(exits).toEqual([]);
  });

  it("exits 130 after the grace time, once the last words journalled the run", () => {
    vi.useFakeTimers();
    const { stopper, exits, text } = setup();
    const said: string[] = [];
    stopper.beforeForcedExit(() => said.push("journal run 1"));
    const forget = stopper.beforeForcedExit(() => said.push("journal run 2"));
    forget();
    stopper.beforeForcedExit(() => {
      throw new Error("state already closed");
    });
    stopper.onSignal("SIGINT");
    vi.advanceTimersByTime(700);
    expect(said).toEqual(["journal run 1"]);
    expect(exits).toEqual([130]);
    expect(text()).toContain(
      "error [interrupted]: Stopped by SIGINT; the run is journalled as interrupted",
    );
    expect(text()).toContain("hint: Run the same command again");
  });

  it("a second signal exits at once, and only once", () => {
    vi.useFakeTimers();
    const { stopper, exits } = setup();
    stopper.onSignal("SIGINT");
    stopper.onSignal("SIGINT");
    expect(exits).toEqual([130]);
    vi.advanceTimersByTime(1000);
    expect(exits).toEqual([130]);
  });
});
