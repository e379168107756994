import { afterEach, describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { ConflictError } from "../../src/core/errors.js";
import type { RequestGate } from "../../src/core/request-gate.js";
import { createGate } from "../../src/gate/gate.js";
import { clockWithAPause } from "../support/pausing-clock.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

/**
 * Jira's edit takes no If-Match: the adapter reads an issue before editing it and refuses a
 * field a person changed. That read and the PUT are one write of the gate, so a person's save
 * made while the edit waits for its write slot is seen, not overwritten.
 */

let sandbox: JiraSandbox;
afterEach(async () => {
  await sandbox.close();
});

async function setup() {
  sandbox = await startJiraSandbox();
  const { clock, pauseWith } = clockWithAPause();
  const gate = createGate({ system: "jira", limits: { writesPerMinute: 1 }, clock }).forRun({});
  const tracker = (g?: RequestGate) =>
    createJiraTracker({
      baseUrl: sandbox.url,
      email: sandbox.email,
      token: sandbox.token,
      projectKey: sandbox.projectKey,
      gate: g,
    });
  const run = tracker(gate);
  const person = tracker();
  const base = await run.create({
    kind: "story",
    title: "Planned against",
    description: "Written by tinyPM.",
    status: "To Do",
    assignees: [],
    labels: [],
  });
  return { gate, run, person, base, pauseWith };
}

describe("a Jira edit waits for its write slot before it reads the issue", () => {
  it("refuses a summary a person changed while the edit waited, writing nothing", async () => {
    const { gate, run, person, base, pauseWith } = await setup();
    const ref = { kind: "story" as const, id: base.id };
    pauseWith(() => person.update(ref, { set: { title: "Renamed by a person" } }));
    const before = gate.counters();
    const error = await run
      .update(ref, { set: { title: "From tinyPM" }, base })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toContain(`Jira issue ${base.id} changed`);
    expect((await person.get(ref))?.title).toBe("Renamed by a person");
    // The read made in the edit's turn counts as a read; the refused edit is no write.
    const after = gate.counters();
    expect(after.writes).toBe(before.writes);
    expect(after.reads).toBe(before.reads + 1);
    expect(after.byOperation["issue.edit"] ?? 0).toBe(before.byOperation["issue.edit"] ?? 0);
    await run.close();
    await person.close();
  });

  it("edits a summary nobody touched: one read and one PUT in the edit's turn", async () => {
    const { gate, run, person, base, pauseWith } = await setup();
    const ref = { kind: "story" as const, id: base.id };
    pauseWith(() => Promise.resolve());
    const before = gate.counters();
    const updated = await run.update(ref, { set: { title: "From tinyPM" }, base });
    expect(updated.title).toBe("From tinyPM");
    expect((await person.get(ref))?.title).toBe("From tinyPM");
    const after = gate.counters();
    expect(after.byOperation["issue.edit"]).toBe((before.byOperation["issue.edit"] ?? 0) + 1);
    await run.close();
    await person.close();
  });

  it("tells an issue that is gone as before: no issue to update", async () => {
    const { run, person } = await setup();
    const error = await run
      .update({ kind: "story", id: `${sandbox.projectKey}-999` }, { set: { title: "x" } })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(`Jira has no issue ${sandbox.projectKey}-999 to update.`);
    await run.close();
    await person.close();
  });
});
