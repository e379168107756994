/**
 * Before any write: which tinyPM items the run sends to the target with an assignee who has no
 * assignable target account, and what the job's policy does about it (pure).
 */
import { MappingError } from "../../core/errors.js";
import type { ItemKind, SystemName, UserRef, WorkItem } from "../../core/model.js";
import type { UnmappedPolicy, UserTable } from "../../mapping/users.js";
import { BaselessLink } from "./links.js";
import type { LinkView } from "./plan-types.js";
import { EMPTY_SNAPSHOT, normalizeField, sameJson, type Snapshot } from "./snapshot.js";

/** Items that lose (or, under `placeholder`, swap) an assignee; zero when every assignee maps. */
export interface AssigneeLoss {
  readonly policy: UnmappedPolicy;
  /** Items sent to the target with at least one unmatched assignee. */
  readonly items: number;
  /** Unmatched tinyPM user (login, else name) → how many of those items they are assigned. */
  readonly byUser: Readonly<Record<string, number>>;
}

export const NO_ASSIGNEE_LOSS: AssigneeLoss = { policy: "skip", items: 0, byUser: {} };

const who = (u: UserRef): string => u.login ?? u.name ?? u.id ?? "(unnamed)";

/**
 * Counts, over the items the run will write to the target (every unlinked tinyPM item, and linked
 * ones whose assignees changed since the last sync), the assignees the user table cannot place.
 */
export function assigneeLoss(options: {
  readonly items: readonly WorkItem[];
  readonly links: readonly LinkView[];
  readonly table: UserTable;
  /** Whether the mapping syncs the assignees of this kind of item. @default always */
  readonly syncsAssignees?: ((kind: ItemKind) => boolean) | undefined;
}): AssigneeLoss {
  const { table } = options;
  const links = new Map(options.links.map((l) => [`${l.kind}:${l.tinypmId}`, l]));
  const byUser: Record<string, number> = {};
  let items = 0;
  for (const item of options.items) {
    const link = links.get(`${item.kind}:${item.id}`);
    if (link !== undefined && unchangedLogins(item, link, options.syncsAssignees ?? (() => true)))
      continue;
    const lost = item.assignees.filter(
      (u) => u.login === undefined || !table.toTarget.has(u.login),
    );
    if (lost.length === 0) continue;
    items++;
    for (const u of new Set(lost.map(who))) byUser[u] = (byUser[u] ?? 0) + 1;
  }
  return { policy: table.policy, items, byUser };
}

/**
 * A link held without its bases is one whose tinyPM item the run read as it was at the last
 * sync (run-read.ts): its assignees, when synced, are the base's.
 */
function unchangedLogins(
  item: WorkItem,
  link: LinkView,
  syncsAssignees: (kind: ItemKind) => boolean,
): boolean {
  if (!(link instanceof BaselessLink)) return sameLogins(item.assignees, link.baseTinypm);
  // Not synced: the base holds none, so only an item without assignees is "as at the last sync".
  return syncsAssignees(item.kind) || sameLogins(item.assignees, EMPTY_SNAPSHOT);
}

/**
 * Whether the item's assignees are those of the last sync (then the run does not send them),
 * compared as the base holds them: the normalised set of user keys (snapshot.ts).
 */
function sameLogins(assignees: readonly UserRef[], base: Snapshot): boolean {
  const now = normalizeField("assignees", assignees);
  const before = base.fields.assignees;
  if (!Array.isArray(before) || before.length === 0) return !Array.isArray(now) || now.length === 0;
  return sameJson(now, before);
}

/** One line for people: "3 items lose an assignee (policy skip): bob 2, carol 1". */
export function describeAssigneeLoss(loss: AssigneeLoss, target: SystemName): string {
  const users = Object.entries(loss.byUser)
    .map(([u, n]) => `${u} ${n}`)
    .join(", ");
  const verb =
    loss.policy === "placeholder" && loss.items > 0
      ? "get the placeholder assignee"
      : "lose an assignee";
  return `${loss.items} item${loss.items === 1 ? "" : "s"} ${verb} on ${target} (user policy ${loss.policy})${users === "" ? "" : `: ${users}`}`;
}

/** The `fail` policy's stop, raised before the first write. */
export function assigneeLossError(loss: AssigneeLoss, target: SystemName): MappingError {
  return new MappingError(
    `Stopped before writing anything: ${describeAssigneeLoss(loss, target)} — these users have no assignable ${target} account.`,
    {
      hint: "Run `tinypm-sync users --config FILE --job NAME --write users.yaml`, fill in the open entries, point the config's \"users\" at it; or set the job's unmappedUsers to skip or placeholder.",
      issues: Object.keys(loss.byUser).map((u) => ({
        path: ["users", u],
        message: "unmapped user",
      })),
    },
  );
}
