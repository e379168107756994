import { afterEach, describe, expect, it } from "vitest";
import { createTinypmTracker, type TinypmTracker } from "../../../src/adapters/tinypm/index.js";
import { ConflictError } from "../../../src/core/errors.js";
import type { WorkItem } from "../../../src/core/model.js";
import { startReferenceServer, type ReferenceServer } from "../../../src/reference-server/index.js";
import { gateWithPerson, type PersonMoment } from "../../support/person-gate.js";
import { held, personSets } from "../../support/tinypm-person.js";

// tinyPM takes no If-Match: an update reads the item again and PUTs the whole document. The
// person's edit is made at the exact moment through the request gate every request passes: right
// before the update's write is let through (a write waits there for its slot: other requests in
// flight, write windows, the shared budget), and right after the write was answered (before the
// update reads the item back). The edit goes straight into the reference server's store, as a
// person's save in tinyPM's web interface would.

interface Fixture {
  readonly server: ReferenceServer;
  readonly tracker: TinypmTracker;
  readonly moment: PersonMoment;
}

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.tracker.close();
  await fixture?.server.close();
  fixture = undefined;
});

async function start(): Promise<Fixture> {
  const server = await startReferenceServer({ generate: "stories=2,tasks=2,comments=1", seed: 3 });
  const moment: PersonMoment = {};
  const tracker = createTinypmTracker({
    baseUrl: server.url,
    token: server.token,
    projectId: 1,
    gate: gateWithPerson(moment),
  });
  fixture = { server, tracker, moment };
  return fixture;
}

async function planned(f: Fixture, kind: "story" | "task"): Promise<WorkItem> {
  for await (const item of f.tracker.list({ kind })) return item;
  throw new Error(`no ${kind}`);
}

describe.each(["story", "task"] as const)("tinyPM %s update and a person's edit", (kind) => {
  it("refuses the write when the person changed the field being written before the fresh read", async () => {
    const f = await start();
    const base = await planned(f, kind);
    const ref = { kind, id: base.id };
    const writes = f.server.stats().writes;
    f.moment.beforeWrite = () => {
      personSets(f.server, ref, "name", "The person's title");
    };
    const error = await f.tracker.update(ref, { set: { title: "The run's title" }, base }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(f.moment.beforeWrite).toBeUndefined();
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({
      system: "tinypm",
      details: { id: base.id, fields: ["title"] },
    });
    expect((error as Error).message).toContain("nothing was written");
    expect(f.server.stats().writes).toBe(writes);
    expect(held(f.server, ref).name).toBe("The person's title");
  });

  it("keeps another field the person changed before the fresh read, and writes its own", async () => {
    const f = await start();
    const base = await planned(f, kind);
    const ref = { kind, id: base.id };
    expect(base.description).not.toBe("The person's text.");
    f.moment.beforeWrite = () => {
      personSets(f.server, ref, "description", "The person's text.");
    };
    const after = await f.tracker.update(ref, { set: { title: "The run's title" }, base });
    expect(f.moment.beforeWrite).toBeUndefined();
    expect(held(f.server, ref)).toEqual({
      name: "The run's title",
      description: "The person's text.",
    });
    expect(after).toMatchObject({ title: "The run's title", description: "The person's text." });
  });

  it("answers what it wrote, not a person's edit of that field right after the PUT", async () => {
    const f = await start();
    const base = await planned(f, kind);
    const ref = { kind, id: base.id };
    f.moment.afterWrite = () => {
      personSets(f.server, ref, "name", "The person's later title");
      personSets(f.server, ref, "description", "The person's later text.");
    };
    const after = await f.tracker.update(ref, { set: { title: "The run's title" }, base });
    expect(f.moment.afterWrite).toBeUndefined();
    expect(held(f.server, ref)).toEqual({
      name: "The person's later title",
      description: "The person's later text.",
    });
    // The field written is given as written: the person's later value is a change for the next
    // run to carry over, not something already synced. A field not written is as tinyPM holds it
    // (the engine takes its base from the run's own read: `answeredOver`).
    expect(after.title).toBe("The run's title");
    expect(after.description).toBe("The person's later text.");
  });

  it("writes as before when nobody edits: one read and one write, the answer as tinyPM holds it", async () => {
    const f = await start();
    const base = await planned(f, kind);
    const ref = { kind, id: base.id };
    const after = await f.tracker.update(ref, {
      set: { title: "The run's title", description: "The run's text." },
      base,
    });
    expect(after).toEqual({ ...base, title: "The run's title", description: "The run's text." });
    expect(await f.tracker.get(ref)).toEqual(after);
  });
});
