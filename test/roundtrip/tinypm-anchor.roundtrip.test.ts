import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoryRecord } from "../../src/reference-server/index.js";
import { openState } from "../../src/state/open-state.js";
import type { StateStore } from "../../src/state/store.js";
import {
  postgresSkipReason,
  startPostgres,
  type PostgresServer,
} from "../support/postgres-server.js";
import { personCreates } from "./person.js";
import { stopAtMarker } from "./stop-at-marker.js";
import { startWorld, type World } from "./world.js";

// A person's issue is imported into tinyPM and the run stops (a crash) after tinyPM's create,
// before the issue's marker naming the copy and the link. tinyPM holds no marker, nor the issue
// yet: the next run must know the copy by what the import recorded before the create (its
// anchor: the ids tinyPM had, the title and description sent), not by its title alone — a person
// may rename the copy, or another item may carry that title.

let pg: PostgresServer | undefined;
beforeAll(async () => {
  if (postgresSkipReason === undefined) pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
});

const BACKENDS = [
  { backend: "sqlite", skip: undefined },
  { backend: "postgres", skip: postgresSkipReason },
] as const;
const CASES = (["github", "jira"] as const).flatMap((target) =>
  BACKENDS.map((b) => ({ target, ...b })),
);

describe.each(CASES)("a tinyPM copy found again after a crash ($target, $backend state)", (c) => {
  let world: World;
  let openRunState: (() => Promise<StateStore>) | undefined;

  beforeAll(async () => {
    world = await startWorld({ target: c.target, generate: "stories=1,tasks=0,comments=0" });
    if (c.backend === "postgres" && pg !== undefined) {
      const url = await pg.createDatabase(`anchor_${c.target}`);
      openRunState = () => openState({ backend: "postgres", url });
    }
    await run("migrate");
  }, 120_000);
  afterAll(async () => {
    await world.close();
  });

  const run = (
    mode: "migrate" | "sync",
    extra: Parameters<World["run"]>[1] = {},
  ): ReturnType<World["run"]> =>
    world.run(mode, {
      fullScan: true,
      ...(openRunState === undefined ? {} : { openState: openRunState }),
      ...extra,
    });

  /** A person's issue imported by a run that stops before its marker and link; its tinyPM copy. */
  async function crashedImport(
    title: string,
    body: string,
  ): Promise<{ issueId: string; copy: StoryRecord }> {
    const issueId = await personCreates(world, title, body);
    const stopped = { n: 0 };
    await run("sync", { wrapTarget: stopAtMarker(issueId, stopped) }).catch(() => undefined);
    expect(stopped.n).toBe(1);
    const copies = world.tinypm.store.storiesOf(1).filter((s) => s.name === title);
    expect(copies).toHaveLength(1);
    return { issueId, copy: copies[0]! };
  }

  const copiesOf = (...names: string[]): StoryRecord[] =>
    world.tinypm.store.storiesOf(1).filter((s) => names.includes(s.name));

  /** A story a person makes in tinyPM, unrelated to any issue. */
  const tinypmStory = (name: string, description: string): StoryRecord =>
    world.tinypm.store.createStory({
      projectId: 1,
      position: world.tinypm.store.nextPosition(1),
      name,
      description,
      tags: [],
    });

  it.skipIf(c.skip !== undefined)(
    "renamed in tinyPM before the rerun: one copy, linked to its issue, the rename carried to the issue",
    async () => {
      const { issueId, copy } = await crashedImport("Anchor rename", "Only this issue says this.");
      const { id, ...rest } = copy;
      world.tinypm.store.replaceStory(id, { ...rest, name: "Anchor rename, renamed in tinyPM" });

      const next = await run("sync");
      expect(next.summary).toMatchObject({ created: 0, failed: 0, conflicts: 0 });
      expect(
        copiesOf("Anchor rename", "Anchor rename, renamed in tinyPM").map((s) => s.id),
      ).toEqual([id]);
      const person = world.targetTracker();
      try {
        const issue = await person.get({ kind: "story", id: issueId });
        expect(issue?.title).toBe("Anchor rename, renamed in tinyPM");
        expect(issue?.marker?.tinypmId).toBe(String(id));
      } finally {
        await person.close();
      }
      const quiet = await run("sync");
      expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    },
    180_000,
  );

  it.skipIf(c.skip !== undefined)(
    "the issue renamed on the target before the rerun, and a tinyPM story now holding its new title: its own copy, no theft",
    async () => {
      const { issueId, copy } = await crashedImport(
        "Anchor before",
        "Said by the renamed issue only.",
      );
      const person = world.targetTracker();
      try {
        await person.update({ kind: "story", id: issueId }, { set: { title: "Anchor after" } });
        // A person's own tinyPM story that happens to carry the issue's new title.
        const other = tinypmStory("Anchor after", "A tinyPM story of its own.");

        const next = await run("sync");
        expect(next.summary).toMatchObject({ failed: 0, conflicts: 0 });
        const issue = await person.get({ kind: "story", id: issueId });
        expect(issue?.marker?.tinypmId).toBe(String(copy.id));
        // The copy takes the issue's new title; the person's story stays its own item, exported.
        expect(
          copiesOf("Anchor before", "Anchor after")
            .map((s) => s.id)
            .sort(),
        ).toEqual([copy.id, other.id].sort());
        const story = world.tinypm.store.storiesOf(1).find((s) => s.id === copy.id);
        expect(story?.name).toBe("Anchor after");
        const exported = [];
        for await (const i of person.list({ kind: "story" }))
          if (i.marker?.tinypmId === String(other.id)) exported.push(i);
        expect(exported.map((i) => i.title)).toEqual(["Anchor after"]);
      } finally {
        await person.close();
      }
      const quiet = await run("sync");
      expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    },
    180_000,
  );

  it.skipIf(c.skip !== undefined)(
    "renamed in tinyPM, and a new tinyPM story with the sent title: refused, nothing created, both named; settled once one goes",
    async () => {
      const { issueId, copy } = await crashedImport("Anchor tie", "Words of the tied issue.");
      const { id, ...rest } = copy;
      world.tinypm.store.replaceStory(id, { ...rest, name: "Anchor tie, renamed" });
      const store = world.tinypm.store;
      const other = tinypmStory("Anchor tie", "Someone else's story.");

      const held = await run("sync");
      expect(held.summary).toMatchObject({ created: 0, conflicts: 0 });
      expect(
        copiesOf("Anchor tie", "Anchor tie, renamed")
          .map((s) => s.id)
          .sort(),
      ).toEqual([id, other.id].sort());
      const state = await (
        openRunState ?? (() => openState({ backend: "sqlite", path: world.statePath }))
      )();
      try {
        const parked = (await state.failures("widgets")).filter((f) => f.targetId === issueId);
        expect(parked.map((f) => f.code)).toEqual(["identity_ambiguous"]);
        expect(parked[0]?.message).toContain(`${id} "Anchor tie, renamed"`);
        expect(parked[0]?.message).toContain(`${other.id} "Anchor tie"`);
        expect(await state.getLinkByTarget("widgets", "story", issueId)).toBeUndefined();
      } finally {
        await state.close();
      }
      const person = world.targetTracker();
      try {
        expect((await person.get({ kind: "story", id: issueId }))?.marker).toBeUndefined();
        store.deleteStory(other.id);
        const settled = await run("sync");
        expect(settled.summary).toMatchObject({ created: 0, failed: 0, conflicts: 0 });
        const issue = await person.get({ kind: "story", id: issueId });
        expect(issue?.marker?.tinypmId).toBe(String(id));
        expect(issue?.title).toBe("Anchor tie, renamed");
      } finally {
        await person.close();
      }
      expect(copiesOf("Anchor tie", "Anchor tie, renamed").map((s) => s.id)).toEqual([id]);
      const quiet = await run("sync");
      expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    },
    180_000,
  );
});
