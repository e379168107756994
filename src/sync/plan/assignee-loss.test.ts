import { describe, expect, it } from "vitest";
import type { UserRef, WorkItem } from "../../core/model.js";
import type { UserTable } from "../../mapping/users.js";
import { assigneeLoss } from "./assignee-loss.js";
import { BaselessLink, linkRecord } from "./links.js";
import type { LinkView } from "./plan-types.js";
import {
  bundledMapping,
  linkOf,
  targetCopy,
  tinypmStory,
} from "../../../test/support/work-items.js";

const mapping = bundledMapping("github");
const ann: UserRef = { id: "1", login: "ann", name: "Ann" };
const bob: UserRef = { id: "2", login: "bob", name: "Bob" };
// Ann has a GitHub account; Bob has none.
const table: UserTable = {
  policy: "fail",
  toTarget: new Map([["ann", { login: "ann-gh" }]]),
  toTinypm: new Map(),
  tinypmUsers: [ann, bob],
};

/** A story synced with `synced` as its assignees, now assigned `now`. */
function pair(id: string, synced: UserRef[], now: UserRef[]): { item: WorkItem; link: LinkView } {
  const then = tinypmStory(id, { assignees: synced });
  const link = linkOf(mapping, then, targetCopy(mapping, then, { system: "github", id: `g${id}` }));
  return { item: { ...then, assignees: now }, link };
}

describe("the assignees a run would lose", () => {
  it("leaves out a linked item whose assignees are those of the last sync", () => {
    const same = pair("1", [bob, ann], [ann, bob]);
    const loss = assigneeLoss({ items: [same.item], links: [same.link], table });
    expect(loss).toEqual({ policy: "fail", items: 0, byUser: {} });
  });

  it("counts a linked item whose assignees changed to someone unmapped", () => {
    const changed = pair("2", [ann], [ann, bob]);
    const loss = assigneeLoss({ items: [changed.item], links: [changed.link], table });
    expect(loss).toEqual({ policy: "fail", items: 1, byUser: { bob: 1 } });
  });

  it("counts every unlinked item with an unmapped assignee", () => {
    const fresh = tinypmStory("3", { assignees: [bob] });
    const loss = assigneeLoss({ items: [fresh], links: [], table });
    expect(loss.items).toBe(1);
  });

  it("takes an item unassigned since its last sync as unchanged", () => {
    const none = pair("4", [], []);
    expect(assigneeLoss({ items: [none.item], links: [none.link], table }).items).toBe(0);
  });

  it("takes a link held without its bases as unchanged where the mapping syncs assignees", () => {
    // A run holds a link without its bases only for an item it read as at the last sync.
    const { item, link } = pair("5", [bob], [bob]);
    const baseless = new BaselessLink(
      linkRecord({ job: "j", targetSystem: "github", now: new Date(0), ...link }),
    );
    const synced = assigneeLoss({ items: [item], links: [baseless], table });
    expect(synced.items).toBe(0);
    // Not synced: the base holds none, so an assigned item counts as an unlinked one does.
    const unsynced = assigneeLoss({
      items: [item],
      links: [baseless],
      table,
      syncsAssignees: () => false,
    });
    expect(unsynced).toEqual({ policy: "fail", items: 1, byUser: { bob: 1 } });
  });
});
