import { afterEach, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { ConflictError } from "../../src/core/errors.js";
import { createGate } from "../../src/gate/gate.js";
import { clockWithAPause } from "../support/pausing-clock.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { personSends } from "./github-setup.js";

/**
 * GitHub's PATCH takes no If-Match: the adapter reads an issue again before updating it and
 * refuses a field a person changed. That read and the PATCH are one write of the gate, so a
 * person's edit made while the update waits for its write slot is seen, not overwritten.
 */

let sandbox: GithubSandbox;
afterEach(async () => {
  await sandbox.close();
});

/** A sandbox, a tracker whose writes come one a minute, and an issue it made. */
async function setup() {
  sandbox = await startGithubSandbox();
  const { clock, pauseWith } = clockWithAPause();
  const gate = createGate({ system: "github", limits: { writesPerMinute: 1 }, clock }).forRun({});
  const tracker = createGithubTracker({
    baseUrl: sandbox.url,
    token: sandbox.token,
    owner: sandbox.owner,
    repo: sandbox.repo,
    gate,
  });
  const base = await tracker.create({
    kind: "story",
    title: "Planned against",
    description: "Written by tinyPM.",
    marker: { job: "turn", origin: "tinypm", originKind: "story", originId: "7" },
    status: "open",
    assignees: [],
    labels: [],
  });
  return { gate, tracker, base, pauseWith };
}

async function issueNow(number: string) {
  const res = await fetch(
    `${sandbox.url}/repos/${sandbox.owner}/${sandbox.repo}/issues/${number}`,
    {
      headers: { authorization: `Bearer ${sandbox.token}` },
    },
  );
  return (await res.json()) as { title: string; body: string; milestone: { title: string } | null };
}

async function milestoneTitles(): Promise<string[]> {
  const res = await fetch(
    `${sandbox.url}/repos/${sandbox.owner}/${sandbox.repo}/milestones?state=all`,
    { headers: { authorization: `Bearer ${sandbox.token}` } },
  );
  return ((await res.json()) as { title: string }[]).map((m) => m.title);
}

describe("a GitHub update waits for its write slot before it reads the issue", () => {
  it("refuses a title a person changed while the update waited, writing nothing", async () => {
    const { gate, tracker, base, pauseWith } = await setup();
    // The update's write must wait a minute for its slot: a person retitles the issue meanwhile.
    pauseWith(() =>
      personSends(sandbox, "PATCH", `/issues/${base.id}`, { title: "Renamed by a person" }),
    );
    const writesBefore = sandbox.stats().writes;
    const error = await tracker
      .update({ kind: "story", id: base.id }, { set: { title: "From tinyPM" }, base })
      .catch((e: unknown) => e);
    await tracker.close();
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toContain(`GitHub issue #${base.id} changed`);
    // Only the person's PATCH reached GitHub; the issue keeps their title.
    expect(sandbox.stats().writes).toBe(writesBefore + 1);
    expect((await issueNow(base.id)).title).toBe("Renamed by a person");
    // The read made in the write's turn is counted as a read, the refused write not at all.
    expect(gate.counters()).toMatchObject({ writes: 1, reads: 1 });
    expect(gate.counters().byOperation).toMatchObject({ "issues.create": 1, "issues.get": 1 });
    expect(gate.counters().byOperation["issues.update"]).toBeUndefined();
  });

  it("keeps a description a person wrote while an update of the hidden block waited", async () => {
    const { gate, tracker, base, pauseWith } = await setup();
    // The person edits the text in GitHub's editor: the hidden block under it stays as it was.
    const before = (await issueNow(base.id)).body;
    pauseWith(() =>
      personSends(sandbox, "PATCH", `/issues/${base.id}`, {
        body: before.replace("Written by tinyPM.", "A person's words."),
      }),
    );
    await tracker.update({ kind: "story", id: base.id }, { set: {}, metadata: { points: 3 } });
    const body = (await issueNow(base.id)).body;
    expect(body.startsWith("A person's words.")).toBe(true);
    expect(body).not.toContain("Written by tinyPM.");
    const read = await tracker.get({ kind: "story", id: base.id });
    expect(read?.metadata).toMatchObject({ points: 3 });
    await tracker.close();
    expect(gate.counters().byOperation).toMatchObject({ "issues.update": 1 });
  });

  it("writes a title nobody touched: the read and the PATCH, one of each", async () => {
    const { gate, tracker, base, pauseWith } = await setup();
    pauseWith(() => Promise.resolve());
    const updated = await tracker.update(
      { kind: "story", id: base.id },
      { set: { title: "From tinyPM" }, base },
    );
    await tracker.close();
    expect(updated.title).toBe("From tinyPM");
    expect((await issueNow(base.id)).title).toBe("From tinyPM");
    expect(gate.counters().byOperation).toMatchObject({
      "issues.create": 1,
      "issues.get": 1,
      "issues.update": 1,
    });
  });

  it("makes no milestone for an update a person made stale; makes it for one they did not", async () => {
    const { tracker, base } = await setup();
    await personSends(sandbox, "PATCH", `/issues/${base.id}`, { title: "Renamed by a person" });
    const stale = await tracker
      .update(
        { kind: "story", id: base.id },
        { set: { title: "From tinyPM", iteration: { id: "", name: "Sprint 9" } }, base },
      )
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ConflictError);
    expect(await milestoneTitles()).toEqual([]);
    const fresh = await tracker.get({ kind: "story", id: base.id });
    if (fresh === undefined) throw new Error("the issue is gone");
    const updated = await tracker.update(
      { kind: "story", id: base.id },
      { set: { iteration: { id: "", name: "Sprint 9" } }, base: fresh },
    );
    await tracker.close();
    expect(updated.iteration?.name).toBe("Sprint 9");
    expect(await milestoneTitles()).toEqual(["Sprint 9"]);
    expect((await issueNow(base.id)).milestone?.title).toBe("Sprint 9");
  });
});
