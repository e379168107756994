import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteState } from "../../state/sqlite-state.js";
import type { ItemKind } from "../../core/model.js";
import type { LinkRecord } from "../../state/records.js";
import type { StateStore } from "../../state/store.js";
import type { SyncEvent } from "../events.js";
import { StateError } from "../../core/errors.js";
import { creationsLog, readCreations, recordCreations } from "./creations.js";

let dir: string;
let state: StateStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "creations-"));
  state = await openSqliteState({ path: join(dir, "state.db") });
});
afterEach(async () => {
  await state.close();
  rmSync(dir, { recursive: true, force: true });
});

const created = (n: number): SyncEvent => ({
  type: "created",
  kind: "story",
  side: "target",
  title: `Story ${n}`,
  id: `${100 + n}`,
  sourceId: `${n}`,
});

describe("the creates a run notes as it goes", () => {
  it("are read back, every one across records, when the run recorded none at its end", async () => {
    const log = creationsLog(state, "gh", "run-1");
    for (let n = 1; n <= 150; n++) log.note(created(n));
    log.note({ type: "phase", phase: "apply" });
    await log.flush();
    const read = await readCreations(state, "gh", "run-1");
    expect(read).toHaveLength(150);
    expect(read?.[149]).toEqual({
      kind: "story",
      side: "target",
      tinypmId: "150",
      targetId: "250",
      title: "Story 150",
    });
    expect(await readCreations(state, "gh", "run-2")).toBeUndefined();
  });

  it("go together into one write per record while a write is under way", async () => {
    const writes: string[] = [];
    const counting = {
      setCheckpoint: async (...args: Parameters<StateStore["setCheckpoint"]>) => {
        writes.push(args[1]);
        await state.setCheckpoint(...args);
      },
    };
    const log = creationsLog(counting, "gh", "run-1");
    // 150 creates made in one turn: one write for each of the two records they fill.
    for (let n = 1; n <= 150; n++) log.note(created(n));
    await log.flush();
    expect(writes).toEqual(["created-by:run-1#0", "created-by:run-1#1"]);
    // One more create later: its record is written again, with it.
    log.note(created(151));
    await log.flush();
    expect(writes).toHaveLength(3);
    expect(await readCreations(state, "gh", "run-1")).toHaveLength(151);
  });

  it("give way to the run's full record", async () => {
    const log = creationsLog(state, "gh", "run-1");
    log.note(created(1));
    log.note(created(2));
    await log.flush();
    await state.setCheckpoint("gh", "created-by:run-1", {
      items: JSON.stringify([
        {
          kind: "story",
          side: "target",
          tinypmId: "1",
          targetId: "101",
          title: "Story 1",
          base: {},
        },
      ]),
      count: 1,
    });
    expect((await readCreations(state, "gh", "run-1"))?.map((c) => c.tinypmId)).toEqual(["1"]);
  });
});

describe("a run's full record of its creates", () => {
  /** The links the creates left, as the state reads them back (only what the record takes). */
  const links = {
    getLinkByTinypm: (job: string, kind: ItemKind, tinypmId: string): Promise<LinkRecord> =>
      Promise.resolve({
        job,
        kind,
        tinypmId,
        targetSystem: "github",
        targetId: `${100 + Number(tinypmId)}`,
        origin: "tinypm",
        base: {
          tinypm: {},
          target: { fields: { title: `Story ${tinypmId}` } },
          tinypmHash: "",
          targetHash: "",
        },
        updatedAt: "2026-11-29T00:00:00.000Z",
      }),
  };

  it("is written in parts of 1,000, the record naming them last, and read back whole", async () => {
    const writes: string[] = [];
    const recording = {
      ...links,
      setCheckpoint: async (...args: Parameters<StateStore["setCheckpoint"]>) => {
        writes.push(args[1]);
        await state.setCheckpoint(...args);
      },
    };
    const events = Array.from({ length: 2_500 }, (_, i) => created(i + 1));
    await recordCreations(recording, "gh", "run-1", events);
    expect(writes).toEqual([
      "created-by:run-1/0",
      "created-by:run-1/1",
      "created-by:run-1/2",
      "created-by:run-1",
    ]);
    const read = await readCreations(state, "gh", "run-1");
    expect(read).toHaveLength(2_500);
    expect(read?.[2_499]).toEqual({
      kind: "story",
      side: "target",
      tinypmId: "2500",
      targetId: "2600",
      title: "Story 2500",
      base: { fields: { title: "Story 2500" } },
    });
  });

  it("stopped before the record naming its parts, leaves the noted creates to undo", async () => {
    const log = creationsLog(state, "gh", "run-1");
    log.note(created(1));
    await log.flush();
    const stopping = {
      ...links,
      setCheckpoint: async (...args: Parameters<StateStore["setCheckpoint"]>) => {
        if (args[1] === "created-by:run-1") throw new Error("killed");
        await state.setCheckpoint(...args);
      },
    };
    await expect(recordCreations(stopping, "gh", "run-1", [created(1)])).rejects.toThrow("killed");
    expect(await readCreations(state, "gh", "run-1")).toEqual([
      { kind: "story", side: "target", tinypmId: "1", targetId: "101", title: "Story 1" },
    ]);
  });

  it("missing a part is named as a damaged state, not read as fewer creates", async () => {
    await recordCreations(
      { ...links, setCheckpoint: state.setCheckpoint.bind(state) },
      "gh",
      "run-1",
      [created(1)],
    );
    await state.setCheckpoint("gh", "created-by:run-1", { parts: 2, count: 1_001 });
    const error = await readCreations(state, "gh", "run-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).message).toContain("lacks part 2 of 2");
    expect((error as StateError).message).toContain("run run-1 of job gh");
  });
});
