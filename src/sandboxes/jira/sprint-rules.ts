import { JiraHttpError, fieldErrors, isRecord } from "./context.js";
import type { SprintRecord, SprintState } from "./store.js";

/** The writable part of a sprint. */
type SprintFields = Pick<
  SprintRecord,
  "name" | "goal" | "startDate" | "endDate" | "completeDate"
> & {
  state?: SprintState;
};

function parseDate(
  body: Record<string, unknown>,
  key: string,
  errors: Record<string, string>,
): number | undefined {
  const raw = body[key];
  if (raw === undefined || raw === null) return undefined;
  const t = typeof raw === "string" ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(t))
    errors[key] =
      `Invalid date format for '${key}': use ISO 8601, e.g. 2015-04-11T15:22:00.000+10:00.`;
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Applies a sprint create/update payload under Jira's state rules (Agile API): a new sprint is
 * `future`; future → active needs start and end dates (and no other active sprint on the board);
 * active → closed sets `completeDate`; no other state change; a closed sprint is immutable;
 * `completeDate` is read-only. Throws JiraHttpError (400) when a rule is broken.
 */
export function sprintUpdate(opts: {
  current: SprintRecord | undefined;
  body: Record<string, unknown>;
  otherActive: boolean;
  now?: number;
}): SprintFields {
  const { current, body } = opts;
  if (current?.state === "closed")
    throw new JiraHttpError(400, ["A closed sprint cannot be updated."]);
  const errors: Record<string, string> = {};
  const next: SprintFields = {
    name: current?.name ?? "",
    goal: current?.goal ?? "",
    startDate: current?.startDate,
    endDate: current?.endDate,
    completeDate: current?.completeDate,
  };
  if (body.name !== undefined) {
    if (typeof body.name !== "string" || body.name.trim() === "")
      errors.name = "The sprint name is required.";
    else if (body.name.length > 30) errors.name = "The sprint name must not exceed 30 characters.";
    else next.name = body.name;
  } else if (current === undefined) errors.name = "The sprint name is required.";
  if (body.goal !== undefined) next.goal = typeof body.goal === "string" ? body.goal : "";
  next.startDate = parseDate(body, "startDate", errors) ?? next.startDate;
  next.endDate = parseDate(body, "endDate", errors) ?? next.endDate;
  if (next.startDate !== undefined && next.endDate !== undefined && next.endDate < next.startDate) {
    errors.endDate = "The end date must be after the start date.";
  }
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  const state = isRecord(body) && typeof body.state === "string" ? body.state : undefined;
  if (current !== undefined && state !== undefined && state !== current.state) {
    next.state = stateChange(current.state, state, next, opts);
  }
  return next;
}

function stateChange(
  from: SprintState,
  to: string,
  next: SprintFields,
  opts: { otherActive: boolean; now?: number },
): SprintState {
  if (from === "future" && to === "active") {
    if (next.startDate === undefined || next.endDate === undefined) {
      throw new JiraHttpError(400, [
        "The sprint cannot be started: both startDate and endDate must be set.",
      ]);
    }
    if (opts.otherActive)
      throw new JiraHttpError(400, [
        "The sprint cannot be started: another sprint is already active on this board.",
      ]);
    return "active";
  }
  if (from === "active" && to === "closed") {
    next.completeDate = opts.now ?? Date.now();
    return "closed";
  }
  throw new JiraHttpError(400, [
    `The sprint state cannot change from '${from}' to '${to}': only future → active and active → closed are allowed.`,
  ]);
}
