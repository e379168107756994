import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { WorkItem } from "../core/model.js";
import { compileMapping } from "../mapping/compile.js";
import { loadMapping } from "../mapping/load.js";
import type { LinkView } from "./plan/plan-types.js";
import { EMPTY_SNAPSHOT, targetSnapshot, tinypmSnapshot } from "./plan/snapshot.js";
import { rechecks } from "./verify-target.js";

const mapping = compileMapping(
  loadMapping(fileURLToPath(new URL("../../mappings/github.yaml", import.meta.url))),
);

function story(id: string, over: Partial<WorkItem> = {}): WorkItem {
  return {
    system: "tinypm",
    kind: "story",
    id,
    title: `Story ${id}`,
    status: "PENDING",
    assignees: [],
    labels: [],
    comments: [],
    timeEntries: [],
    metadata: {},
    ...over,
  };
}

function copyOf(t: WorkItem, over: Partial<WorkItem> = {}): WorkItem {
  const draft = mapping.toTarget(t);
  return {
    ...draft,
    system: "github",
    id: `g${t.id}`,
    metadata: draft.metadata ?? {},
    comments: [],
    timeEntries: [],
    ...over,
  };
}

function linkOf(t: WorkItem, g: WorkItem, over: Partial<LinkView> = {}): LinkView {
  return {
    kind: t.kind,
    tinypmId: t.id,
    targetId: g.id,
    origin: "tinypm",
    baseTinypm: tinypmSnapshot(mapping, t),
    baseTarget: targetSnapshot(mapping, g),
    syncedAt: "2024-01-01T00:00:00.000Z",
    ...over,
  };
}

const [one, two, three, four] = ["1", "2", "3", "4"].map((id) => story(id)) as [
  WorkItem,
  WorkItem,
  WorkItem,
  WorkItem,
];
const links = [one, two, three, four].map((t) => linkOf(t, copyOf(t)));

describe("rechecks", () => {
  it("trusts a listing where the plan would do nothing with it", () => {
    const read = { items: [one, two].map((t) => copyOf(t)), complete: false };
    expect(rechecks({ read, links, tinypmItems: [one, two], mapping })).toEqual([]);
  });

  it("names missing, target-changed and tinyPM-changed items, each once", () => {
    const read = {
      items: [copyOf(one, { title: "Old title from a stale listing" }), copyOf(two), copyOf(three)],
      complete: true,
    };
    const tinypm = [one, story("2", { title: "Edited in tinyPM" }), three, four];
    expect(rechecks({ read, links, tinypmItems: tinypm, mapping })).toEqual([
      { kind: "story", id: "g1", reason: "target-changed" },
      { kind: "story", id: "g2", reason: "tinypm-changed" },
      { kind: "story", id: "g4", reason: "missing" },
    ]);
  });

  it("infers nothing from an item missing in a partial read, and skips what was read by itself or is gone", () => {
    const gone = linkOf(three, copyOf(three), { baseTarget: { ...EMPTY_SNAPSHOT, deleted: true } });
    const read = {
      items: [copyOf(one, { title: "Changed" })],
      complete: false,
      fresh: new Set(["story:g1"]),
    };
    expect(
      rechecks({ read, links: [...links.slice(0, 2), gone], tinypmItems: [], mapping }),
    ).toEqual([]);
    expect(
      rechecks({ read: { ...read, complete: true }, links: [gone], tinypmItems: [], mapping }),
    ).toEqual([]);
  });
});
