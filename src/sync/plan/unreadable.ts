import type { ItemKind, SystemName } from "../../core/model.js";
import type { UnreadableItem } from "../../core/tracker.js";
import { baseTitle } from "./links.js";
import type { LinkView, SkipAction } from "./plan-types.js";

const byKey = (kind: ItemKind, id: string): string => `${kind}:${id}`;

const KIND_WORD: Readonly<Record<ItemKind, string>> = { story: "story", task: "task" };

function targetWord(system: SystemName): string {
  return system === "github" ? "GitHub issue" : system === "jira" ? "Jira issue" : "copy";
}

function systemWord(system: SystemName): string {
  return system === "github" ? "GitHub" : system === "jira" ? "Jira" : "the target";
}

/**
 * What a person reads about an item tinyPM sent but the run could not read: what is wrong and
 * where (the error's own words), and what to do — fix it in tinyPM and run again.
 */
export function unreadableMessage(u: UnreadableItem, targetSystem: SystemName): string {
  const what = `tinyPM ${KIND_WORD[u.kind]} ${u.id}${u.title ? ` "${u.title}"` : ""}`;
  const because = u.error.message.replace(/\.$/, "");
  return (
    `${what} cannot be read: ${because}. ` +
    `Fix the ${KIND_WORD[u.kind]} in tinyPM (edit or re-save it there), then run again: ` +
    `the next run picks it up once it reads; until then its ${targetWord(targetSystem)} and ` +
    `its link are left as they are.`
  );
}

/**
 * The items tinyPM sent but the run could not read, and whether a link is theirs: an unreadable
 * item, or a task of an unreadable story (left out with it). Such links are neither updated nor
 * taken for deleted: their items were not read, not found gone.
 */
export function unreadableIndex(unreadable: readonly UnreadableItem[] | undefined): {
  readonly items: readonly UnreadableItem[];
  readonly covers: (link: LinkView) => boolean;
} {
  const byId = new Map<string, UnreadableItem>();
  for (const u of unreadable ?? [])
    if (!byId.has(byKey(u.kind, u.id))) byId.set(byKey(u.kind, u.id), u);
  const stories = new Set([...byId.values()].filter((u) => u.kind === "story").map((u) => u.id));
  return {
    items: [...byId.values()],
    covers: (link) =>
      byId.has(byKey(link.kind, link.tinypmId)) ||
      (link.kind === "task" &&
        link.parentTinypmId !== undefined &&
        stories.has(link.parentTinypmId)),
  };
}

/**
 * The plan's entry for a linked target item the service no longer shows (though it shows the
 * rest): not a deletion — its tinyPM item and link are left as they are, parked as failed with
 * what the service said and what to do.
 */
export function invisibleSkip(
  u: UnreadableItem,
  link: LinkView,
  title: string,
  targetSystem: SystemName,
): SkipAction {
  const what = `${targetWord(targetSystem)} ${u.id}`;
  const because = u.error.message.replace(/\.$/, "");
  return {
    type: "skip",
    kind: u.kind,
    title,
    tinypmId: link.tinypmId,
    targetId: link.targetId,
    reason: "unreadable",
    failure: {
      code: u.error.code,
      message:
        `${what} can no longer be read (${because}), although the rest of the target can: ` +
        `it is not taken for deleted. It may have been moved where the token cannot see it, or ` +
        `the token lost access to it. Give the token access again (or move it back), then run ` +
        `again; until then tinyPM ${KIND_WORD[u.kind]} ${link.tinypmId} and its link are left ` +
        `as they are.`,
    },
  };
}

/** The plan's entry for an unreadable item: left alone, counted and parked as failed. */
export function unreadableSkip(
  u: UnreadableItem,
  link: LinkView | undefined,
  targetSystem: SystemName,
): SkipAction {
  const base = link === undefined ? undefined : baseTitle(link, "tinypm");
  const title =
    u.title !== undefined && u.title !== ""
      ? u.title
      : base !== undefined && base !== ""
        ? base
        : `${KIND_WORD[u.kind]} ${u.id}`;
  return {
    type: "skip",
    kind: u.kind,
    title,
    tinypmId: u.id,
    ...(link !== undefined && { targetId: link.targetId }),
    reason: "unreadable",
    failure: { code: u.error.code, message: unreadableMessage(u, targetSystem) },
  };
}

/**
 * Whether a target's unreadable entry is an item whose payload failed validation (parked as
 * unreadable on the target), not one the service no longer shows (GitHub's 404: invisible).
 */
export function isBadPayload(u: UnreadableItem): boolean {
  return u.error.code === "payload_invalid";
}

/**
 * What a person reads about a target item whose payload fails validation: what is wrong and
 * where (the adapter's words name the item, the request and the field), what becomes of it in
 * this run, and what to do.
 */
export function targetUnreadableMessage(
  u: UnreadableItem,
  link: LinkView | undefined,
  targetSystem: SystemName,
): string {
  const because = u.error.message.replace(/\.$/, "");
  const system = systemWord(targetSystem);
  const kept =
    link === undefined
      ? `it is not imported into tinyPM`
      : `tinyPM ${KIND_WORD[link.kind]} ${link.tinypmId} and its link are left as they are, and ` +
        `it is not taken for deleted`;
  // The adapter's words name the item when they can (GitHub: `GitHub issue #12 "…" cannot be
  // read (…)`); else they are prefixed with it.
  const what = because.includes(u.id)
    ? because
    : `${targetWord(targetSystem)} ${u.id} cannot be read: ${because}`;
  // A GitHub Project (v2) item's values are fixed on the board, not in the issue.
  const operation = (u.error as { readonly operation?: unknown }).operation;
  const fix =
    typeof operation === "string" && operation.startsWith("projectV2")
      ? `Open it on the project board and set its fields again`
      : `Open it in ${system} and save it again (or fix the field named)`;
  return (
    `${what}. It is left out of this ` +
    `run: ${kept}. ${fix}; if every ` +
    `answer is broken, check what sits between you and ${system} (a proxy rewriting answers). ` +
    `The next run reads it again and picks it up once it reads.`
  );
}

/** The plan's entry for a target item whose payload fails validation: parked as failed. */
export function targetUnreadableSkip(
  u: UnreadableItem,
  link: LinkView | undefined,
  targetSystem: SystemName,
): SkipAction {
  const base = link === undefined ? undefined : baseTitle(link, "target");
  const title =
    u.title !== undefined && u.title !== ""
      ? u.title
      : base !== undefined && base !== ""
        ? base
        : `${targetWord(targetSystem)} ${u.id}`;
  return {
    type: "skip",
    kind: link?.kind ?? u.kind,
    title,
    ...(link !== undefined && { tinypmId: link.tinypmId }),
    targetId: u.id,
    reason: "unreadable",
    unreadableOn: "target",
    failure: { code: u.error.code, message: targetUnreadableMessage(u, link, targetSystem) },
  };
}
