import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import { tinypmSnapshot } from "../plan/snapshot.js";
import { UNKNOWN_BASE } from "../plan/unknown-base.js";
import { foundCopyBases, foundTinypmCopyBase } from "./found-copy.js";
import {
  bundledMapping,
  createMarker,
  targetCopy,
  tinypmStory,
} from "../../../test/support/work-items.js";

const mapping = bundledMapping("github");

const story = (over: Partial<WorkItem> = {}): WorkItem =>
  tinypmStory("7", {
    description: "Some text",
    status: "ACCEPTED",
    priority: "SHOULD_HAVE",
    estimate: 3,
    color: "WHITE",
    position: 7,
    ...over,
  });

/** The GitHub copy the create of `t` wrote (marker digests of `t`), then changed by `over`. */
const copyOf = (t: WorkItem, over: Partial<WorkItem> = {}): WorkItem =>
  targetCopy(
    mapping,
    t,
    { system: "github", id: "101" },
    { marker: createMarker(mapping, t), ...over },
  );

describe("foundCopyBases", () => {
  const t = story();

  it("a copy as the create wrote it: every field agreed", () => {
    const bases = foundCopyBases(mapping, t, copyOf(t));
    expect(bases.tinypm.fields).toEqual(tinypmSnapshot(mapping, t).fields);
    expect(bases.target.fields).toEqual(tinypmSnapshot(mapping, t).fields);
  });

  it("a field the create wrote and a person changed on the copy since: tinyPM's value is the base", () => {
    const bases = foundCopyBases(mapping, t, copyOf(t, { title: "Renamed by a person" }));
    expect(bases.tinypm.fields.title).toBe("Story 7");
    expect(bases.target.fields.title).toBe("Story 7");
  });

  it("tinyPM changed since the create, the copy as written: the copy's value is the base", () => {
    const now = story({ title: "Renamed in tinyPM" });
    const bases = foundCopyBases(mapping, now, copyOf(t));
    expect(bases.tinypm.fields.title).toBe("Story 7");
    expect(bases.target.fields.title).toBe("Story 7");
  });

  it("a status the create had not set yet (not closed): the copy's value, so tinyPM's flows", () => {
    const open = copyOf(t, { status: "open" });
    const bases = foundCopyBases(mapping, t, open);
    expect(bases.target.fields.status).toBe("PENDING");
    expect(bases.tinypm.fields.status).toBeUndefined();
  });

  it("a status the copy held as written and a person changed since (reopened): the copy's value flows", () => {
    const accepted = story({ status: "ACCEPTED" });
    const reopened = copyOf(accepted, { status: "open" });
    const bases = foundCopyBases(mapping, accepted, reopened, ["open", "closed:completed", "open"]);
    expect(bases.tinypm.fields.status).toBe("ACCEPTED");
    expect(bases.target.fields.status).toBe("ACCEPTED");
  });

  it("a history that never reached the written status: a close not made yet, tinyPM's value flows", () => {
    const accepted = story({ status: "ACCEPTED" });
    const bases = foundCopyBases(mapping, accepted, copyOf(accepted, { status: "open" }), ["open"]);
    expect(bases.tinypm.fields.status).toBeUndefined();
    expect(bases.target.fields.status).toBe("PENDING");
  });

  it("reopened by a person while tinyPM changed the status too: its base is unknown (the policy decides)", () => {
    const accepted = story({ status: "ACCEPTED" });
    const now = story({ status: "REJECTED" });
    const reopened = copyOf(accepted, { status: "open" });
    const bases = foundCopyBases(mapping, now, reopened, ["open", "closed:completed", "open"]);
    expect(bases.tinypm.fields.status).toEqual(UNKNOWN_BASE);
    expect(bases.target.fields.status).toEqual(UNKNOWN_BASE);
  });

  it("without digests (an older marker): the copy's values, so tinyPM's flow", () => {
    const copy = copyOf(t, { title: "Renamed by a person" });
    const bare = { ...copy, marker: copy.marker && { ...copy.marker, base: undefined } };
    expect(foundCopyBases(mapping, t, bare).target.fields.title).toBe("Renamed by a person");
  });
});

describe("foundTinypmCopyBase", () => {
  const issue = copyOf(story(), { marker: undefined, description: "" });
  const copy = story({ description: "Edited in tinyPM" });

  it("the target still maps to the draft sent: the target's value is the base, tinyPM's flows", () => {
    const { tinypm: base, differing } = foundTinypmCopyBase(mapping, copy, issue, true);
    expect(differing).toEqual(["description"]);
    expect(base.fields.description).toBeUndefined();
    expect(base.fields.title).toBe("Story 7");
  });

  it("the target changed since too: the differing fields' base is unknown (the policy decides)", () => {
    const { target: base } = foundTinypmCopyBase(mapping, copy, issue, false);
    expect(base.fields.description).toEqual(UNKNOWN_BASE);
    expect(base.fields.title).toBe("Story 7");
  });
});
