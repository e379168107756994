import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import type { ConflictPolicy, Direction } from "./merge.js";
import { planActions } from "./plan.js";
import type { LinkView, PlanAction } from "./plan-types.js";
import { plannedOutcome } from "../outcome.js";
import type { PlanInput } from "./plan-input.js";
import {
  bundledMapping,
  linkOf as linkFor,
  SYNCED_AT,
  targetCopy,
  TEST_JOB,
  tinypmStory,
} from "../../../test/support/work-items.js";
import { NotFoundError, PayloadInvalidError } from "../../core/errors.js";

const mapping = bundledMapping("github");
const JOB = TEST_JOB.name;
const SYNCED = SYNCED_AT;
const NOW = new Date("2024-01-02T00:00:00.000Z");

const story = (id: string, over: Partial<WorkItem> = {}): WorkItem =>
  tinypmStory(id, {
    description: "Some text",
    priority: "SHOULD_HAVE",
    estimate: 3,
    labels: ["ui"],
    color: "WHITE",
    position: Number(id),
    ...over,
  });

/** The GitHub copy of a tinyPM item, as the adapter would read it back. */
const copyOf = (t: WorkItem, id: string, over: Partial<WorkItem> = {}): WorkItem =>
  targetCopy(
    mapping,
    t,
    { system: "github", id },
    {
      comments: t.comments.map((c) => mapping.commentToTarget(c)),
      marker: { job: JOB, origin: "tinypm", originKind: t.kind, originId: t.id },
      updatedAt: SYNCED,
      ...over,
    },
  );

const linkOf = (t: WorkItem, g: WorkItem): LinkView => linkFor(mapping, t, g);

function plan(o: {
  tinypm?: WorkItem[];
  target?: WorkItem[];
  links?: LinkView[];
  direction?: Direction;
  conflicts?: ConflictPolicy;
  onDelete?: "ignore" | "close" | "delete";
  targetComplete?: boolean;
  tinypmComplete?: boolean;
  resolved?: PlanInput["resolved"];
  claimed?: PlanInput["claimed"];
  unreadable?: PlanInput["tinypm"]["unreadable"];
  targetUnreadable?: PlanInput["target"]["unreadable"];
  inStep?: PlanInput["tinypm"]["inStep"];
}): PlanAction[] {
  return [
    ...planActions({
      job: {
        name: JOB,
        direction: o.direction ?? "both",
        conflicts: o.conflicts ?? "manual",
        onDelete: o.onDelete ?? "close",
      },
      mapping,
      targetSystem: "github",
      tinypm: {
        items: o.tinypm ?? [],
        complete: o.tinypmComplete ?? true,
        unreadable: o.unreadable,
        inStep: o.inStep,
      },
      target: {
        items: o.target ?? [],
        complete: o.targetComplete ?? true,
        unreadable: o.targetUnreadable,
      },
      links: o.links ?? [],
      resolved: o.resolved,
      claimed: o.claimed,
      now: NOW,
    }).actions,
  ];
}

const s1 = story("1");
const g1 = copyOf(s1, "101");
const linked = { tinypm: [s1], target: [g1], links: [linkOf(s1, g1)] };
const edited = story("1", { title: "Edited on tinyPM" });
const editedOnTarget = copyOf(s1, "101", {
  title: "Edited on GitHub",
  updatedAt: NOW.toISOString(),
});
const both = { tinypm: [edited], target: [editedOnTarget], links: [linkOf(s1, g1)] };
const newIssue: WorkItem = { ...copyOf(story("9"), "109"), marker: undefined };

describe("planActions", () => {
  it.each<[string, Parameters<typeof plan>[0], Partial<PlanAction> & Record<string, unknown>]>([
    [
      "an unlinked tinyPM story is created on the target",
      { tinypm: [s1] },
      { type: "create", toSide: "target" },
    ],
    [
      "an unlinked issue becomes a story",
      { target: [newIssue] },
      { type: "create", toSide: "tinypm" },
    ],
    [
      "to-target: an unlinked issue stays",
      { target: [newIssue], direction: "to-target" },
      { type: "skip", reason: "direction" },
    ],
    [
      "an unlinked issue another job sharing the repository claimed is left to that job",
      { target: [newIssue], claimed: new Map([["109", "other-job"]]) },
      { type: "skip", reason: "claimed", claimedBy: "other-job", targetId: "109" },
    ],
    [
      "an unlinked issue this job claimed (its import was interrupted) is imported",
      { target: [newIssue], claimed: new Map([["109", JOB]]) },
      { type: "create", toSide: "tinypm" },
    ],
    [
      "to-target: an issue another job claimed stays for the direction",
      { target: [newIssue], direction: "to-target", claimed: new Map([["109", "other-job"]]) },
      { type: "skip", reason: "direction" },
    ],
    [
      "an issue another job sharing the repository imported (its marker, its claim) is named as that job's",
      {
        target: [
          {
            ...newIssue,
            marker: { job: "other-job", origin: "github", originKind: "story", originId: "109" },
          },
        ],
        claimed: new Map([["109", "other-job"]]),
      },
      { type: "skip", reason: "claimed", claimedBy: "other-job", targetId: "109" },
    ],
    [
      "another job's own item (its marker, no claim) is foreign",
      {
        target: [
          {
            ...newIssue,
            marker: { job: "other-job", origin: "tinypm", originKind: "story", originId: "9" },
          },
        ],
      },
      { type: "skip", reason: "foreign", targetId: "109" },
    ],
    [
      "to-tinypm: an unlinked story stays",
      { tinypm: [s1], direction: "to-tinypm" },
      { type: "skip", reason: "direction" },
    ],
    [
      "an issue with our marker but no link is adopted",
      { tinypm: [s1], target: [g1] },
      { type: "adopt" },
    ],
    [
      "a second copy of a linked story is filtered",
      { ...linked, target: [g1, copyOf(s1, "102")] },
      { type: "skip", reason: "filtered" },
    ],
    ["a linked pair with no change is unchanged", linked, { type: "skip", reason: "unchanged" }],
    [
      "our own write read back from the feed is an echo",
      { ...linked, targetComplete: false },
      { type: "skip", reason: "echo" },
    ],
    [
      "a pair not in the feed is unchanged",
      { ...linked, target: [], targetComplete: false },
      { type: "skip", reason: "unchanged" },
    ],
    [
      "a tinyPM edit goes to the target",
      { ...linked, tinypm: [edited] },
      { type: "update", targetSet: { title: "Edited on tinyPM" }, tinypmSet: {} },
    ],
    [
      "a target edit goes to tinyPM",
      { ...linked, target: [editedOnTarget] },
      { type: "update", tinypmSet: { title: "Edited on GitHub" }, targetSet: {} },
    ],
    [
      "both edited, manual: parked, nothing written",
      both,
      { type: "update", tinypmSet: {}, targetSet: {} },
    ],
    [
      "both edited, policy tinypm",
      { ...both, conflicts: "tinypm" },
      { type: "update", targetSet: { title: "Edited on tinyPM" }, tinypmSet: {} },
    ],
    [
      "both edited, policy target",
      { ...both, conflicts: "target" },
      { type: "update", tinypmSet: { title: "Edited on GitHub" }, targetSet: {} },
    ],
    [
      "both edited, newest: the target's later change wins",
      { ...both, conflicts: "newest" },
      { type: "update", tinypmSet: { title: "Edited on GitHub" } },
    ],
    [
      "both edited, resolved for tinyPM",
      { ...both, resolved: new Map([["story:1", { title: "tinypm" as const }]]) },
      { type: "update", targetSet: { title: "Edited on tinyPM" } },
    ],
    [
      "an issue gone from a full scan closes the story",
      { ...linked, target: [] },
      { type: "delete", side: "tinypm", mode: "close", set: { status: "REJECTED" } },
    ],
    [
      "a story gone from tinyPM closes the issue",
      { ...linked, tinypm: [] },
      { type: "delete", side: "target", mode: "close", set: { status: "closed:not_planned" } },
    ],
    [
      "a story gone, onDelete delete",
      { ...linked, tinypm: [], onDelete: "delete" },
      { type: "delete", side: "target", mode: "delete" },
    ],
    [
      "a story gone, onDelete ignore: only recorded",
      { ...linked, tinypm: [], onDelete: "ignore" },
      { type: "delete", side: "target", mode: "none" },
    ],
    [
      "a story gone, issue not in the feed: still closed",
      { ...linked, tinypm: [], target: [], targetComplete: false },
      { type: "delete", side: "target", mode: "close" },
    ],
    [
      "a deletion already mirrored is skipped",
      {
        ...linked,
        target: [],
        links: [{ ...linkOf(s1, g1), baseTarget: { ...linkOf(s1, g1).baseTarget, deleted: true } }],
      },
      { type: "skip", reason: "deleted" },
    ],
  ])("%s", (_row, input, expected) => {
    const actions = plan(input);
    const interesting = actions.filter((a) => a.type !== "skip" || actions.length === 1);
    expect(interesting.length > 0 ? interesting : actions).toEqual(
      expect.arrayContaining([expect.objectContaining(expected)]),
    );
  });

  it("moves a stale base without writing when both sides made the same change", () => {
    const same = story("1", { title: "Same on both" });
    const [a] = plan({ ...linked, tinypm: [same], target: [copyOf(same, "101")] });
    expect(a).toMatchObject({ type: "update", tinypmSet: {}, targetSet: {}, conflicts: [] });
    expect(a && plannedOutcome(a)).toBe("unchanged");
  });

  it("names a story gone from tinyPM by its title at the last sync when the issue was not read", () => {
    const gone = plan({ ...linked, tinypm: [], target: [], targetComplete: false });
    expect(gone).toEqual([expect.objectContaining({ type: "delete", title: s1.title })]);
    const mirrored = linkOf(s1, g1);
    const later = plan({
      tinypm: [],
      target: [],
      targetComplete: false,
      links: [{ ...mirrored, baseTinypm: { ...mirrored.baseTinypm, deleted: true } }],
    });
    expect(later).toEqual([
      expect.objectContaining({ type: "skip", reason: "deleted", title: s1.title }),
    ]);
  });

  it("says on the closed issue why it was closed, unless the issue already says so", () => {
    const why = `Closed by tinypm-sync: story #${s1.id} was deleted in tinyPM (job ${JOB}).`;
    const [close] = plan({ ...linked, tinypm: [] });
    expect(close).toMatchObject({ type: "delete", mode: "close", comment: why });
    const said = copyOf(s1, "101", {
      comments: [{ id: "c1", author: {}, createdAt: NOW.toISOString(), body: why }],
    });
    const [again] = plan({ ...linked, tinypm: [], target: [said] });
    expect(again).toMatchObject({ type: "delete", mode: "close" });
    expect(again).not.toHaveProperty("comment");
    const [deleted] = plan({ ...linked, tinypm: [], onDelete: "delete" });
    expect(deleted).not.toHaveProperty("comment");
  });

  it("records a task gone from the target: nothing marks a tinyPM task closed", () => {
    const t1 = tinypmStory("11", { kind: "task", parentId: "1", status: "IN PROGRESS" });
    const gone = plan({
      tinypm: [s1, t1],
      target: [g1],
      links: [linkOf(s1, g1), linkOf(t1, copyOf(t1, "111"))],
    }).find((a) => a.type === "delete");
    expect(gone).toMatchObject({ type: "delete", kind: "task", side: "tinypm", mode: "none" });
    expect(gone).not.toHaveProperty("set.status");
  });

  it("infers no deletion from a partial tinyPM scan", () => {
    expect(plan({ ...linked, tinypm: [], tinypmComplete: false })).toEqual([]);
  });

  it("parks a conflict with both values and the base", () => {
    const [a] = plan(both);
    expect(a?.type).toBe("update");
    expect(a && plannedOutcome(a)).toBe("conflict");
    expect(a?.type === "update" ? a.conflicts : []).toEqual([
      {
        field: "title",
        base: "Story 1",
        tinypm: "Edited on tinyPM",
        target: "Edited on GitHub",
        resolution: "parked",
      },
    ]);
  });

  it("puts a new story's marker on the copy and orders stories before tasks by id", () => {
    const task: WorkItem = { ...story("3"), kind: "task", parentId: "10", status: "TO DO" };
    const actions = plan({ tinypm: [task, story("10"), story("2")] });
    expect(actions.map((a) => (a.type === "create" ? `${a.kind}:${a.source.id}` : a.type))).toEqual(
      ["story:2", "story:10", "task:3"],
    );
    // Version 2: both ids and the digests of the copied values (no instance: the test job has none).
    const marker = actions[0]?.type === "create" ? actions[0].draft.marker : undefined;
    expect(marker).toMatchObject({
      job: JOB,
      origin: "tinypm",
      originKind: "story",
      originId: "2",
      tinypmId: "2",
    });
    expect(marker?.instance).toBeUndefined();
    expect(marker?.base?.title).toMatch(/^[0-9a-f]{8}$/);
  });

  it("copies a new comment across and never reads our own copy back as a change", () => {
    const comment = { author: { name: "Ann" }, createdAt: "2024-01-01T10:00:00", body: "Hi" };
    const withComment = story("1", { comments: [comment] });
    const [a] = plan({ ...linked, tinypm: [withComment] });
    expect(a?.type === "update" ? a.commentsToTarget.length : -1).toBe(1);
    const g = copyOf(withComment, "101");
    const after = plan({ tinypm: [withComment], target: [g], links: [linkOf(withComment, g)] });
    expect(after).toEqual([expect.objectContaining({ type: "skip", reason: "unchanged" })]);
  });
});

describe("planActions with an item tinyPM sent unreadable (issue 31)", () => {
  const broken = new PayloadInvalidError(
    "tinyPM GET /userstory/{id} (id 1) returned a refused document: malformed XML (</descripton> closes <description>, line 4) (<userStory>…).",
    { system: "tinypm", operation: "GET /userstory/{id}", id: "1" },
  );
  const t1: WorkItem = { ...story("5"), kind: "task", parentId: "1", status: "TO DO" };
  const gt1 = copyOf(t1, "105", { parentId: "101" });
  const links = [linkOf(s1, g1), { ...linkOf(t1, gt1), parentTinypmId: "1" }];

  it("parks the story as failed, with its ids and a hint; neither it nor its task is deleted", () => {
    const actions = plan({
      tinypm: [],
      target: [g1, gt1],
      links,
      unreadable: [{ kind: "story", id: "1", title: "Story 1", error: broken }],
    });
    expect(actions.map((a) => [a.type, a.kind, plannedOutcome(a)])).toEqual([
      ["skip", "story", "failed"],
    ]);
    expect(actions[0]).toMatchObject({
      reason: "unreadable",
      tinypmId: "1",
      targetId: "101",
      failure: {
        code: "payload_invalid",
        message: expect.stringMatching(
          /^tinyPM story 1 "Story 1" cannot be read: .*line 4.*Fix the story in tinyPM.*GitHub issue and its link are left as they are\.$/,
        ) as unknown,
      },
    });
  });

  it("parks an unreadable task alone: its story is planned as usual", () => {
    const actions = plan({
      tinypm: [story("1", { title: "Edited" })],
      target: [g1, gt1],
      links,
      unreadable: [{ kind: "task", id: "5", parentId: "1", error: broken }],
    });
    expect(actions.map((a) => [a.type, a.kind, plannedOutcome(a)])).toEqual([
      ["update", "story", "updated"],
      ["skip", "task", "failed"],
    ]);
  });

  it("creates nothing for an unlinked unreadable story (a migration): it is created once it reads", () => {
    const actions = plan({
      tinypm: [],
      unreadable: [{ kind: "story", id: "7", error: broken }],
    });
    expect(actions).toEqual([
      expect.objectContaining({
        type: "skip",
        reason: "unreadable",
        tinypmId: "7",
        title: "story 7",
      }),
    ]);
  });
});

describe("planActions with a target issue sent unreadable (issue 31)", () => {
  const bad = (id: string, title?: string) => ({
    kind: "story" as const,
    id,
    title,
    error: new PayloadInvalidError(
      `GitHub issue #${id} cannot be read (issues.listForRepo): state: Invalid option`,
      { system: "github", operation: "issues.listForRepo", id },
    ),
  });
  /** A copy that answered 404: invisible to the token, not a bad payload. */
  const notShown = (id: string) => ({
    ...bad(id),
    error: new NotFoundError(`GitHub issue #${id} answered 404`, {
      system: "github",
      operation: "issues.get",
      id,
      status: 404,
    }),
  });

  it("parks a linked issue missing from a complete read: its story is not deleted", () => {
    const actions = plan({
      ...linked,
      target: [],
      onDelete: "delete",
      targetUnreadable: [bad("101")],
    });
    expect(actions.map((a) => [a.type, plannedOutcome(a)])).toEqual([["skip", "failed"]]);
    expect(actions[0]).toMatchObject({
      reason: "unreadable",
      unreadableOn: "target",
      tinypmId: "1",
      targetId: "101",
      failure: {
        code: "payload_invalid",
        message: expect.stringMatching(
          /^GitHub issue #101 cannot be read .*state.*tinyPM story 1 and its link are left as they are, and it is not taken for deleted\. Open it in GitHub/,
        ) as unknown,
      },
    });
  });

  it("parks a linked task sent unreadable under another kind: nothing deleted on either side", () => {
    // Its payload no longer tells it is a sub-issue (parent_issue_url broken too): the adapter
    // names it a story. Its link says task; the id alone tells it was sent.
    const t5 = story("5", { kind: "task", parentId: "1" });
    const g5 = copyOf(t5, "105", { parentId: "101" });
    const actions = plan({
      tinypm: [s1, t5],
      target: [g1],
      links: [linkOf(s1, g1), linkOf(t5, g5)],
      onDelete: "delete",
      targetUnreadable: [bad("105")],
    });
    expect(actions.filter((a) => a.type === "delete")).toEqual([]);
    expect(actions.filter((a) => plannedOutcome(a) === "failed")).toEqual([
      expect.objectContaining({ kind: "task", tinypmId: "5", targetId: "105" }),
    ]);
  });

  it("parks it when tinyPM is gone too: no deletion written over an issue never read", () => {
    const actions = plan({ ...linked, tinypm: [], target: [], targetUnreadable: [bad("101")] });
    expect(actions.map((a) => [a.type, plannedOutcome(a)])).toEqual([["skip", "failed"]]);
  });

  it("parks a new issue instead of importing it, and names it by its title", () => {
    const actions = plan({ targetUnreadable: [bad("109", "Person's issue")] });
    expect(actions).toEqual([
      expect.objectContaining({
        type: "skip",
        reason: "unreadable",
        targetId: "109",
        title: "Person's issue",
        failure: expect.objectContaining({
          message: expect.stringContaining("it is not imported into tinyPM") as unknown,
        }) as unknown,
      }),
    ]);
    expect(actions[0]).not.toHaveProperty("tinypmId");
  });

  it("plans the pair as usual when a read by id found it readable after all", () => {
    const actions = plan({ ...both, targetUnreadable: [bad("101")] });
    expect(actions.map((a) => a.type)).toEqual(["update"]);
  });

  it("plans an item read unchanged and let go as it plans the item kept", () => {
    // A sync from a checkpoint: the copy not read, read unreadable, or not shown (404).
    for (const targetUnreadable of [undefined, [bad("101")], [notShown("101")]]) {
      const read = { links: linked.links, target: [], targetComplete: false, targetUnreadable };
      const kept = plan({ ...read, tinypm: [s1] });
      const letGo = plan({ ...read, tinypm: [], inStep: new Set(["story:1"]) });
      expect(letGo).toEqual(kept);
      expect(letGo).toHaveLength(1);
    }
    expect(
      plan({
        ...linked,
        target: [],
        targetComplete: false,
        tinypm: [],
        inStep: new Set(["story:1"]),
      }),
    ).toEqual([expect.objectContaining({ type: "skip", reason: "unchanged", title: s1.title })]);
  });

  it("counts an item let go as present: a complete read deletes nothing for it", () => {
    const actions = plan({
      ...linked,
      tinypm: [],
      inStep: new Set(["story:1"]),
      onDelete: "delete",
    });
    expect(actions.filter((a) => a.type === "delete")).toEqual([]);
    expect(plan({ ...linked, tinypm: [], onDelete: "delete" }).map((a) => a.type)).toContain(
      "delete",
    );
  });

  it("keeps a 404 (invisible) apart from a bad payload", () => {
    const [a] = plan({ ...linked, target: [], targetUnreadable: [notShown("101")] });
    expect(a).toMatchObject({ type: "skip", reason: "unreadable" });
    expect(a).not.toHaveProperty("unreadableOn");
  });
});
