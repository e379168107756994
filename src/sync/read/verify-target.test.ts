import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import type { LinkView } from "../plan/plan-types.js";
import { EMPTY_SNAPSHOT } from "../plan/snapshot.js";
import { rechecks } from "./verify-target.js";
import {
  bundledMapping,
  linkOf as linkFor,
  targetCopy,
  tinypmStory,
} from "../../../test/support/work-items.js";

const mapping = bundledMapping("github");
const story = tinypmStory;
const copyOf = (t: WorkItem, over: Partial<WorkItem> = {}): WorkItem =>
  targetCopy(mapping, t, { system: "github", id: `g${t.id}` }, over);
const linkOf = (t: WorkItem, g: WorkItem, over: Partial<LinkView> = {}): LinkView =>
  linkFor(mapping, t, g, over);

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
