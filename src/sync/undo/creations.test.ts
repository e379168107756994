import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteState } from "../../state/sqlite-state.js";
import type { StateStore } from "../../state/store.js";
import type { SyncEvent } from "../events.js";
import { creationsLog, readCreations } from "./creations.js";

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
