/**
 * Iterations ⇄ GitHub milestones / Jira sprints. A milestone holds a name, a description (the
 * goal) and a due date (start + duration); the rest of a tinyPM iteration travels in a hidden
 * note at the end of the description, used only while the due date still matches it.
 */
import type { Iteration, IterationDraft } from "../core/model.js";
import { isRecord, toJsonValue } from "./values.js";

export interface IterationCodec {
  toTarget(iteration: Iteration): IterationDraft;
  toTinypm(iteration: Iteration): IterationDraft;
}

const DAY_MS = 86_400_000;
const NOTE = /\n\n<!-- tinypm-sync:iteration (\{.*\}) -->$/;

/** `YYYY-MM-DD` plus `days`. */
export function addDays(date: string, days: number): string | undefined {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `start` to `end` (`YYYY-MM-DD`). */
export function daysBetween(start: string, end: string): number | undefined {
  const a = Date.parse(`${start}T00:00:00Z`);
  const b = Date.parse(`${end}T00:00:00Z`);
  return Number.isNaN(a) || Number.isNaN(b) ? undefined : Math.round((b - a) / DAY_MS);
}

function endOf(it: Iteration): string | undefined {
  if (it.endDate !== undefined) return it.endDate;
  return it.startDate !== undefined && it.durationDays !== undefined
    ? addDays(it.startDate, it.durationDays)
    : undefined;
}

function draft(values: Record<string, unknown>): IterationDraft {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v;
  return out as unknown as IterationDraft;
}

function milestoneCodec(): IterationCodec {
  return {
    toTarget(it) {
      const { id: _id, name, goal, ...rest } = it;
      const note = JSON.stringify(toJsonValue({ ...rest, goal })).replace(/-/g, "\\u002d");
      const text = `${goal ?? ""}\n\n<!-- tinypm-sync:iteration ${note} -->`;
      const state =
        it.state === "closed" ? "closed" : it.state === undefined ? undefined : "active";
      return draft({ name, goal: text, endDate: endOf(it), state });
    },
    toTinypm(it) {
      const m = NOTE.exec(it.goal ?? "");
      const goalText = m === null ? it.goal : (it.goal ?? "").slice(0, m.index);
      let note: Record<string, unknown> = {};
      try {
        const parsed: unknown = m?.[1] === undefined ? undefined : JSON.parse(m[1]);
        if (isRecord(parsed)) note = { ...parsed };
      } catch {
        note = {};
      }
      const sameEnd =
        it.endDate === undefined || it.endDate === endOf(note as unknown as Iteration);
      const closedAgrees = (note.state === "closed") === (it.state === "closed");
      const stored = typeof note.goal === "string" ? note.goal : undefined;
      const goal = m === null || goalText !== (stored ?? "") ? goalText : stored;
      return draft({
        ...note,
        name: it.name,
        goal,
        endDate: sameEnd ? note.endDate : it.endDate,
        durationDays: sameEnd ? note.durationDays : daysFrom(note.startDate, it.endDate),
        state: closedAgrees ? note.state : it.state,
      });
    },
  };
}

function daysFrom(start: unknown, end: string | undefined): number | undefined {
  return typeof start === "string" && end !== undefined ? daysBetween(start, end) : undefined;
}

function sprintCodec(): IterationCodec {
  return {
    toTarget(it) {
      const { id: _id, ...rest } = it;
      return draft({ ...rest, endDate: endOf(it) });
    },
    toTinypm(it) {
      const { id: _id, ...rest } = it;
      const days =
        it.durationDays ??
        (it.startDate !== undefined && it.endDate !== undefined
          ? daysBetween(it.startDate, it.endDate)
          : undefined);
      return draft({ ...rest, durationDays: days });
    },
  };
}

/** The iteration codec of a target. */
export function createIterationCodec(target: "github" | "jira"): IterationCodec {
  return target === "github" ? milestoneCodec() : sprintCodec();
}
