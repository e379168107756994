import type { BoardSpec } from "../../core/board.js";
import { SyncError } from "../../core/errors.js";
import type { ProbeResult } from "../../core/tracker.js";
import type { GithubProjectRef } from "../connection.js";
import type { GithubClient } from "./client.js";
import { OWNER_KIND, PROBE_BY_NUMBER, PROBE_BY_TITLE } from "./project-queries.js";

/** A project field as `check` reads it. */
export interface ProbedField {
  readonly name: string;
  readonly dataType: string;
  readonly options?: readonly { readonly name: string }[] | undefined;
}

/** What one field the mapping needs is on the board: fine, to be made, or in the way. */
export interface FieldVerdict {
  readonly text: string;
  /** A field of that name but another type: the board cannot use it. */
  readonly wrongType: boolean;
}

/**
 * The fields the mapping's `project:` section needs, each `present`, `present, options to add:
 * …`, `will be created`, or of the wrong type (the tool would write values it cannot hold).
 */
export function boardFieldVerdicts(
  fields: readonly ProbedField[],
  spec: BoardSpec,
): FieldVerdict[] {
  const wanted: [string, string, readonly { name: string }[] | undefined][] = [
    [spec.fields.status, "SINGLE_SELECT", spec.statusOptions],
    [spec.fields.iteration, "ITERATION", undefined],
    [spec.fields.estimate, "NUMBER", undefined],
    [spec.fields.priority, "SINGLE_SELECT", spec.priorityOptions],
  ];
  return wanted.map(([name, type, options]) => {
    const f = fields.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (f === undefined) return { text: `${name} will be created`, wrongType: false };
    if (f.dataType !== type)
      return { text: `${name} is ${f.dataType}, needs ${type}`, wrongType: true };
    const missing = (options ?? []).filter(
      (o) => !(f.options ?? []).some((h) => h.name.toLowerCase() === o.name.toLowerCase()),
    );
    return {
      text:
        missing.length === 0
          ? `${name} present`
          : `${name} present, options to add: ${missing.map((o) => o.name).join(", ")}`,
      wrongType: false,
    };
  });
}

interface RawProbeProject {
  number: number;
  title: string;
  viewerCanUpdate: boolean;
  fields: { nodes: (Partial<ProbedField> | null)[] };
}

/**
 * `check`'s probe of the job's GitHub Project (v2): the owner's kind, the project (by number, or
 * by title: one missing is created by the first migration), the fields the mapping needs, and
 * whether the token may write the board. A classic token's scopes (`X-OAuth-Scopes`, from the
 * repository probe) say what it may do; a fine-grained token cannot reach a user's project.
 */
export async function probeProject(
  client: GithubClient,
  ref: GithubProjectRef,
  spec: BoardSpec,
  token: { readonly classicScopes?: readonly string[] | undefined; readonly env?: string },
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const what =
    "number" in ref
      ? `Project (v2) ${ref.owner}/${ref.number}`
      : `Project (v2) "${ref.title}" of ${ref.owner}`;
  const scopes = token.classicScopes;
  const env = token.env ?? "the token";
  const q = <T>(operation: string, query: string, variables: Record<string, unknown>) =>
    client.graphql<T>({ operation, query, variables, write: false, idempotent: true, signal });
  const base = { system: "github" as const, reachable: true, authenticated: true };
  const fail = (details: string, hint: string | undefined, visible = false): ProbeResult => ({
    ...base,
    projectVisible: visible,
    canWrite: false,
    details,
    hint,
  });

  let ownerKind: string | undefined;
  try {
    const o = await q<{ repositoryOwner: { __typename: string } | null }>(
      "projectV2.probeOwner",
      OWNER_KIND,
      { owner: ref.owner },
    );
    ownerKind = o.repositoryOwner?.__typename;
    if (ownerKind === undefined)
      return fail(
        `[not_found] ${what}: no user or organization "${ref.owner}" on GitHub`,
        "Check targets.github.project.owner: the login of the user or organization that owns the project.",
      );
    const owner = ownerKind === "User" ? `user ${ref.owner}` : `organization ${ref.owner}`;
    let project: RawProbeProject | undefined;
    if ("number" in ref) {
      const r = await q<{ repositoryOwner: { projectV2?: RawProbeProject | null } | null }>(
        "projectV2.probe",
        PROBE_BY_NUMBER,
        { owner: ref.owner, number: ref.number },
      );
      project = r.repositoryOwner?.projectV2 ?? undefined;
    } else {
      const r = await q<{
        repositoryOwner: { projectsV2?: { nodes: (RawProbeProject | null)[] } } | null;
      }>("projectV2.probe", PROBE_BY_TITLE, { owner: ref.owner, title: ref.title });
      project =
        r.repositoryOwner?.projectsV2?.nodes.find((p) => p?.title === ref.title) ?? undefined;
    }
    // A classic token writes the board with the `project` scope (`read:project` only reads).
    const scopeWrites = scopes === undefined || scopes.includes("project");
    const readOnly =
      scopes !== undefined && !scopes.includes("project")
        ? `The token can read the project but not write it: give ${env} the \`project\` scope (classic token; \`read:project\` only reads).`
        : undefined;
    if (project === undefined) {
      if ("number" in ref || (ownerKind === "User" && scopes === undefined)) throw new NotFound();
      // Found by title: the first migration creates it, with every field.
      return {
        ...base,
        projectVisible: true,
        canWrite: scopeWrites,
        details: `${what} (${owner}) not there yet: the first migrate creates it with the fields ${spec.fields.status}, ${spec.fields.iteration}, ${spec.fields.estimate}, ${spec.fields.priority}`,
        hint: readOnly,
      };
    }
    const fields = project.fields.nodes.filter(
      (f): f is ProbedField => typeof f?.name === "string" && typeof f.dataType === "string",
    );
    const verdicts = boardFieldVerdicts(fields, spec);
    const wrong = verdicts.filter((v) => v.wrongType);
    const details = `${what} "${project.title}" (${owner}): fields ${verdicts.map((v) => v.text).join("; ")}`;
    if (wrong.length > 0)
      return fail(
        `[mapping_invalid] ${details}`,
        "Rename the project's field or name another one in the mapping's project.fields (docs/mappings.md).",
        true,
      );
    const canWrite = scopeWrites && project.viewerCanUpdate;
    return {
      ...base,
      projectVisible: true,
      canWrite,
      details: canWrite ? details : `${details} (the token cannot write the board)`,
      hint: canWrite
        ? undefined
        : (readOnly ??
          `The token's user cannot edit ${what}: make them a project admin or writer, or use another token.`),
    };
  } catch (err) {
    if (err instanceof NotFound || (err instanceof SyncError && err.code === "not_found")) {
      // A fine-grained token (no X-OAuth-Scopes) sees no user-owned project at all.
      const hint =
        ownerKind === "User" && scopes === undefined
          ? `A user-owned project needs a classic token: fine-grained tokens reach organization projects only. Put a classic token with the \`project\` and \`repo\` scopes in ${env}.`
          : `Check targets.github.project (owner, number or title) and that the token can see the project (classic token: the \`project\` scope).`;
      return fail(`[not_found] ${what}: not found`, hint);
    }
    if (err instanceof SyncError && err.code === "permission_denied")
      return fail(`[permission_denied] ${what}: ${err.message}`, err.hint);
    if (err instanceof SyncError && err.code === "auth_failed")
      return { ...fail(`[auth_failed] ${what}: ${err.message}`, err.hint), authenticated: false };
    // Anything else GitHub answered (a refused query, a timeout): reported, not thrown, so the
    // repository's own line stands.
    if (err instanceof SyncError)
      return {
        ...fail(`[${err.code}] ${what}: ${err.message}`, err.hint),
        reachable: err.code !== "remote_unavailable",
      };
    throw err;
  }
}

class NotFound extends Error {}
