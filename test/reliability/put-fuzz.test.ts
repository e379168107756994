import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportProject, type TinypmArchive } from "../../src/adapters/tinypm/archive.js";
import type { WorkItem } from "../../src/core/model.js";
import { createRandom } from "../../src/server-kit/prng.js";
import { createFigures } from "./figures.js";
import { listAll } from "./snapshot.js";
import { startReliabilityWorld, type ReliabilityWorld } from "./world.js";

/** The figure (docs/reliability.md): 1,000 edits through tinyPM's full-replacement PUT. */
const EDITS = 1_000;
/**
 * The project: 5 stories of 4 tasks, 25 items. Each sync carries an edit of every item (a batch of
 * PER_SYNC distinct issues), so that the property — a PUT changes only the edited field of each
 * of many items at once — is checked on every item each sync, with as few syncs as the 1,000
 * edits allow: 40 syncs rather than 90 with 12 items, each sync and each export of the whole
 * project costing about the same whatever the batch (their fixed reads dominate).
 */
const GENERATE = "stories=5,tasks=4,comments=0";
const PER_SYNC = 25;
const ROUNDS = 10;
const figures = createFigures("put-fuzz");

type Flat = Record<string, Record<string, unknown>>;

/** Every story and task of the archive by `kind:id`, comments and tasks lists aside. */
function flatten(archive: TinypmArchive): Flat {
  const out: Flat = {};
  for (const { tasks, ...story } of archive.stories) {
    out[`story:${story.id}`] = { ...story };
    for (const task of tasks) out[`task:${task.id}`] = { ...task };
  }
  return out;
}

/** The archive field an edited item field lands in. */
const ARCHIVE_FIELD = { title: "name", description: "description" } as const;
type EditedField = keyof typeof ARCHIVE_FIELD;

interface Edit {
  readonly key: string;
  readonly field: EditedField;
  readonly value: string;
}

describe("tinyPM's full-replacement PUT never destroys data", () => {
  let world: ReliabilityWorld;
  const random = createRandom(20261121);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

  beforeAll(async () => {
    world = await startReliabilityWorld({
      target: "github",
      generate: GENERATE,
    });
    const report = await world.run("migrate");
    if (report.summary.failed > 0) throw new Error("the migration failed");
  });
  afterAll(async () => {
    figures.save();
    await world.close();
  });

  const snapshot = async (): Promise<Flat> =>
    flatten(
      await exportProject({ baseUrl: world.tinypm.url, token: world.tinypm.token, projectId: 1 }),
    );

  /** Up to PER_SYNC edits of distinct GitHub issues, each one random field. */
  async function editSome(n: number, serial: number): Promise<Edit[]> {
    const tracker = world.targetTracker();
    try {
      const items = (await listAll(tracker)).filter((i) => i.marker !== undefined);
      const chosen = new Map<string, WorkItem>();
      while (chosen.size < Math.min(n, items.length)) {
        const item = pick(items);
        chosen.set(item.id, item);
      }
      const edits: Edit[] = [];
      for (const item of chosen.values()) {
        const field: EditedField = pick(["title", "description"] as const);
        const value = `${field} edit ${serial + edits.length} (${Math.floor(random() * 1e6)})`;
        await tracker.update(
          { kind: item.kind, id: item.id },
          { set: { [field]: value }, base: item },
        );
        edits.push({ key: `${item.marker?.originKind}:${item.marker?.originId}`, field, value });
      }
      return edits;
    } finally {
      await tracker.close();
    }
  }

  let before: Flat | undefined;
  let done = 0;

  it.each(Array.from({ length: ROUNDS }, (_, i) => i + 1))(
    `edits on GitHub, synced, change only the edited tinyPM field (round %i of ${ROUNDS})`,
    async () => {
      before ??= await snapshot();
      const target = (EDITS / ROUNDS) * 1;
      let round = 0;
      while (round < target) {
        const edits = await editSome(Math.min(PER_SYNC, target - round), done + round);
        const report = await world.run("sync");
        expect(report.events.filter((e) => e.type === "failed" || e.type === "conflict")).toEqual(
          [],
        );
        const after = await snapshot();
        const expected: Flat = structuredClone(before);
        for (const e of edits) {
          const item = expected[e.key];
          expect(item).toBeDefined();
          if (item !== undefined) item[ARCHIVE_FIELD[e.field]] = e.value;
        }
        expect(after).toEqual(expected);
        round += edits.length;
        before = after;
      }
      done += round;
      figures.add({ putEdits: round });
      expect(round).toBe(target);
    },
    180_000,
  );
});
