import type { BoardSpec } from "../../core/board.js";
import type { WorkItem } from "../../core/model.js";
import { hexHash } from "../../core/short-hash.js";

/**
 * The board as read, and the pure rules over it: an issue's values in target terms, the feed's
 * digests, and the detection and repair of an iteration-field rewrite.
 */

export interface BoardIteration {
  readonly id: string;
  readonly title: string;
  readonly startDate: string;
  readonly duration: number;
}

export interface BoardField {
  readonly id: string;
  readonly name: string;
  readonly dataType: string;
  readonly options?:
    readonly { id: string; name: string; color: string; description: string }[] | undefined;
  readonly iterations?: readonly BoardIteration[] | undefined;
}

/** One item's values, by role. */
export interface BoardValues {
  readonly status?: string | undefined;
  readonly priority?: string | undefined;
  readonly estimate?: number | undefined;
  readonly iteration?: BoardIteration | undefined;
}

export interface BoardItem {
  readonly itemId: string;
  readonly number: number;
  values: BoardValues;
}

/** An item's values on the board laid over its issue (status, priority, estimate, iteration). */
export function overlay(
  item: WorkItem,
  values: BoardValues | undefined,
  spec: BoardSpec,
): WorkItem {
  return { ...item, ...boardFields(values, values?.status ?? statusOfIssue(item.status, spec)) };
}

/** The work-item fields a board's values give, the Status being `status`. */
export function boardFields(
  values: BoardValues | undefined,
  status: string,
): Pick<WorkItem, "status" | "priority" | "estimate" | "iteration"> {
  return {
    status,
    priority: values?.priority,
    estimate: values?.estimate,
    iteration:
      values?.iteration === undefined
        ? undefined
        : { id: values.iteration.id, name: values.iteration.title },
  };
}

/** The Status an issue without a board value reads as: its close reason's option, or the open one. */
function statusOfIssue(issueStatus: string, spec: BoardSpec): string {
  if (!issueStatus.startsWith("closed")) return spec.openStatus;
  const reason = issueStatus === "closed:completed" ? "completed" : "not_planned";
  return Object.entries(spec.closed).find(([, r]) => r === reason)?.[0] ?? spec.openStatus;
}

/** The issue status a board Status means: closed with its reason, or open. */
export function issueStatusFor(status: string, spec: BoardSpec): string {
  const reason = spec.closed[status];
  return reason === undefined ? "open" : `closed:${reason}`;
}

/** A short digest of an item's values by name (never ids: a rewrite that kept names is no change). */
export function digestOf(v: BoardValues): string {
  const it = v.iteration;
  const text = JSON.stringify([
    v.status ?? null,
    v.priority ?? null,
    v.estimate ?? null,
    it === undefined ? null : [it.title, it.startDate, it.duration],
  ]);
  return hexHash("sha256", text, 10);
}

/** `old id → new iteration` for a rewrite: every old id gone, matched by title and dates. */
export function rewriteMap(
  before: readonly BoardIteration[],
  now: readonly BoardIteration[],
): Map<string, BoardIteration> | undefined {
  if (before.length === 0 || now.length === 0) return undefined;
  const ids = new Set(now.map((i) => i.id));
  if (before.some((i) => ids.has(i.id))) return undefined;
  const map = new Map<string, BoardIteration>();
  for (const old of before) {
    const same =
      now.find(
        (n) =>
          n.title === old.title && n.startDate === old.startDate && n.duration === old.duration,
      ) ?? now.find((n) => n.title === old.title);
    if (same !== undefined) map.set(old.id, same);
  }
  return map.size === 0 ? undefined : map;
}

/** The checkpoint's board part: digests per issue and the iteration each had (by index). */
export interface BoardCheckpoint {
  readonly items: ReadonlyMap<number, { digest: string; iteration?: number | undefined }>;
  readonly iterations: readonly BoardIteration[];
}

export function encodeBoardCheckpoint(
  items: readonly BoardItem[],
  iterations: readonly BoardIteration[],
): {
  board: string;
  iterations: string;
} {
  const index = new Map(iterations.map((it, i) => [it.id, i]));
  const board = items
    .map((b) => {
      const i = b.values.iteration === undefined ? undefined : index.get(b.values.iteration.id);
      return `${b.number}=${digestOf(b.values)}${i === undefined ? "" : `/${i}`}`;
    })
    .join(",");
  return {
    board,
    iterations: JSON.stringify(iterations.map((i) => [i.id, i.title, i.startDate, i.duration])),
  };
}

export function decodeBoardCheckpoint(board: unknown, iterations: unknown): BoardCheckpoint {
  const items = new Map<number, { digest: string; iteration?: number | undefined }>();
  if (typeof board === "string" && board !== "")
    for (const entry of board.split(",")) {
      const m = /^(\d+)=([0-9a-f]+)(?:\/(\d+))?$/.exec(entry);
      if (m?.[1] === undefined || m[2] === undefined) continue;
      items.set(Number(m[1]), {
        digest: m[2],
        iteration: m[3] === undefined ? undefined : Number(m[3]),
      });
    }
  let its: BoardIteration[] = [];
  if (typeof iterations === "string" && iterations !== "") {
    const parsed = JSON.parse(iterations) as [string, string, string, number][];
    its = parsed.map(([id, title, startDate, duration]) => ({ id, title, startDate, duration }));
  }
  return { items, iterations: its };
}
