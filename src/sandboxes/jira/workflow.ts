/**
 * A Jira workflow as a pure graph: statuses (each in a status category) and transitions between
 * them. Only a transition can change an issue's status (Jira Cloud REST v3: status is not an
 * editable field); a transition is available only from the statuses listed in its `from`.
 */

/** Jira's three status categories (`statusCategory.key`). */
type StatusCategoryKey = "new" | "indeterminate" | "done";

export interface WorkflowStatus {
  readonly id: string;
  readonly name: string;
  readonly category: StatusCategoryKey;
}

export interface WorkflowTransition {
  readonly id: string;
  readonly name: string;
  /** The statuses this transition leaves from; `"any"` makes it a global transition. */
  readonly from: readonly string[] | "any";
  readonly to: string;
  /** Fields the transition screen requires (the sandbox knows `resolution`). */
  readonly requiredFields?: readonly string[];
  /** Whether the transition clears the resolution (reopening). */
  readonly clearsResolution?: boolean;
}

export interface WorkflowSpec {
  readonly statuses: readonly WorkflowStatus[];
  readonly initialStatusId: string;
  readonly transitions: readonly WorkflowTransition[];
}

/**
 * The default workflow: To Do → In Progress → Testing → Done (Done is three transitions away
 * from To Do), Reject from any open status, back-steps, and Reopen from Done/Rejected. Entering
 * Done or Rejected requires a resolution (Done / Won't Do).
 */
export const DEFAULT_WORKFLOW: WorkflowSpec = {
  statuses: [
    { id: "10000", name: "To Do", category: "new" },
    { id: "3", name: "In Progress", category: "indeterminate" },
    { id: "10001", name: "Testing", category: "indeterminate" },
    { id: "10002", name: "Done", category: "done" },
    { id: "10003", name: "Rejected", category: "done" },
  ],
  initialStatusId: "10000",
  transitions: [
    { id: "11", name: "Start progress", from: ["10000"], to: "3" },
    { id: "21", name: "Send to testing", from: ["3"], to: "10001" },
    { id: "31", name: "Done", from: ["10001"], to: "10002", requiredFields: ["resolution"] },
    {
      id: "41",
      name: "Reject",
      from: ["10000", "3", "10001"],
      to: "10003",
      requiredFields: ["resolution"],
    },
    { id: "51", name: "Stop progress", from: ["3"], to: "10000" },
    { id: "61", name: "Back to progress", from: ["10001"], to: "3" },
    { id: "71", name: "Reopen", from: ["10002", "10003"], to: "10000", clearsResolution: true },
  ],
};

/** The transitions available from a status, in workflow order. */
export function availableTransitions(
  spec: WorkflowSpec,
  statusId: string,
): readonly WorkflowTransition[] {
  return spec.transitions.filter((t) => t.from === "any" || t.from.includes(statusId));
}

type TransitionLookup =
  | { readonly kind: "ok"; readonly transition: WorkflowTransition }
  | { readonly kind: "unknown" }
  | { readonly kind: "not-from-here" };

/** Finds a transition by id and checks it may be taken from `statusId`. */
export function findTransition(
  spec: WorkflowSpec,
  statusId: string,
  transitionId: string,
): TransitionLookup {
  const transition = spec.transitions.find((t) => t.id === transitionId);
  if (transition === undefined) return { kind: "unknown" };
  if (transition.from !== "any" && !transition.from.includes(statusId)) {
    return { kind: "not-from-here" };
  }
  return { kind: "ok", transition };
}

export function statusById(spec: WorkflowSpec, id: string): WorkflowStatus | undefined {
  return spec.statuses.find((s) => s.id === id);
}

/** Finds a status by id or (case-insensitive) name. */
export function findStatus(spec: WorkflowSpec, idOrName: string): WorkflowStatus | undefined {
  const lower = idOrName.toLowerCase();
  return spec.statuses.find((s) => s.id === idOrName || s.name.toLowerCase() === lower);
}

/** The shortest sequence of transition ids from one status to another (undefined if none). */
export function shortestPath(
  spec: WorkflowSpec,
  fromStatusId: string,
  toStatusId: string,
): readonly string[] | undefined {
  const seen = new Set([fromStatusId]);
  let frontier: { status: string; path: string[] }[] = [{ status: fromStatusId, path: [] }];
  while (frontier.length > 0) {
    const next: { status: string; path: string[] }[] = [];
    for (const node of frontier) {
      if (node.status === toStatusId) return node.path;
      for (const t of availableTransitions(spec, node.status)) {
        if (seen.has(t.to)) continue;
        seen.add(t.to);
        next.push({ status: t.to, path: [...node.path, t.id] });
      }
    }
    frontier = next;
  }
  return undefined;
}

/** Lists the problems of a workflow spec (unknown statuses, duplicate ids); empty when valid. */
export function validateWorkflow(spec: WorkflowSpec): string[] {
  const problems: string[] = [];
  const ids = new Set(spec.statuses.map((s) => s.id));
  if (ids.size !== spec.statuses.length) problems.push("status ids must be unique");
  if (!ids.has(spec.initialStatusId)) {
    problems.push(`initial status "${spec.initialStatusId}" is not a status of the workflow`);
  }
  const tids = new Set(spec.transitions.map((t) => t.id));
  if (tids.size !== spec.transitions.length) problems.push("transition ids must be unique");
  for (const t of spec.transitions) {
    for (const s of [t.to, ...(t.from === "any" ? [] : t.from)]) {
      if (!ids.has(s)) problems.push(`transition ${t.id} "${t.name}" names unknown status "${s}"`);
    }
  }
  return problems;
}
