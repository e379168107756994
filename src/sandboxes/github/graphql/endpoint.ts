import {
  missingProjectScope,
  scopeHeaders,
  type TokenAccess,
  type TokenScopes,
} from "../access.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  execute,
  Kind,
  OperationTypeNode,
  parse,
  validate,
  visit,
  type DocumentNode,
  type GraphQLError,
  type OperationDefinitionNode,
} from "graphql";
import { BodyTooLargeError, readBody } from "../../../server-kit/http.js";
import type { StatsRecorder } from "../../../server-kit/stats.js";
import { tokensEqual } from "../../../server-kit/tokens.js";
import { findUser, type Store, type UserRecord } from "../store.js";
import type { GraphqlBudget } from "./budget.js";
import { queryCost } from "./cost.js";
import { GqlError } from "./errors.js";
import type { ItemRecord, ProjectRecord, ProjectsStore } from "./projects-store.js";
import { createRoot, type ItemChange } from "./resolvers.js";
import { projectsSchema } from "./sdl.js";

export const GRAPHQL_PATHS: readonly string[] = ["/graphql", "/api/graphql"];

export interface GraphqlEndpoint {
  readonly store: Store;
  readonly projects: ProjectsStore;
  readonly budget: GraphqlBudget;
  readonly stats: StatsRecorder;
  readonly tokens: readonly {
    token: string;
    login: string;
    access: TokenAccess;
    scopes: TokenScopes;
  }[];
  /** Told of every item a mutation changed, with who asked (the `projects_v2_item` webhook). */
  readonly onItemChange?:
    | ((project: ProjectRecord, item: ItemRecord, change: ItemChange, sender: UserRecord) => void)
    | undefined;
}

type Body = Record<string, unknown>;

/**
 * `POST /graphql` (and GHES's `/api/graphql`): GitHub's GraphQL API for the Projects (v2) subset.
 * Like GitHub, it answers errors — validation, not found, rate limits — with HTTP 200 and an
 * `errors` array (each with `type`), beside whatever `data` resolved; only authentication and the
 * secondary limit answer 401 / 403.
 */
export async function serveGraphql(
  ep: GraphqlEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  ep.stats.request("POST", "/graphql");
  const send = (status: number, body: Body, headers: Record<string, string> = {}): void => {
    ep.stats.status(status);
    const text = JSON.stringify(body);
    res
      .writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "content-length": String(Buffer.byteLength(text)),
        ...headers,
      })
      .end(text);
  };
  const user = caller(ep, req);
  if (user === undefined) {
    send(401, {
      message: "Bad credentials",
      documentation_url: "https://docs.github.com/graphql",
    });
    return;
  }
  const headers = (): Record<string, string> => ({
    ...limitHeaders(ep, ep.budget.peek(ep.store.clock.now())),
    ...scopeHeaders(user.scopes),
  });
  let payload: { query?: unknown; variables?: unknown; operationName?: unknown };
  try {
    payload = JSON.parse((await readBody(req, 5 * 1024 * 1024)).toString("utf8")) as typeof payload;
  } catch (error) {
    if (error instanceof BodyTooLargeError) send(413, { message: "Payload too big" });
    else send(400, { message: "Problems parsing JSON" });
    return;
  }
  if (typeof payload.query !== "string") {
    send(
      200,
      { errors: [{ message: "A query attribute must be specified and must be a string." }] },
      headers(),
    );
    return;
  }
  const variables = (payload.variables ?? {}) as Record<string, unknown>;
  let doc: DocumentNode;
  try {
    doc = parse(payload.query);
  } catch (error) {
    const e = error as GraphQLError;
    send(200, { errors: [{ message: e.message, locations: e.locations }] }, headers());
    return;
  }
  const invalid = validate(projectsSchema(), doc);
  if (invalid.length > 0) {
    send(
      200,
      {
        errors: invalid.map((e) => ({
          path: e.path,
          locations: e.locations,
          message: e.message,
          extensions: { code: "undefinedField" },
        })),
      },
      headers(),
    );
    return;
  }
  const op = doc.definitions.find(
    (d): d is OperationDefinitionNode =>
      d.kind === Kind.OPERATION_DEFINITION &&
      (typeof payload.operationName !== "string" || d.name?.value === payload.operationName),
  );
  if (op === undefined) {
    send(200, { errors: [{ message: "No operation named in the document" }] }, headers());
    return;
  }
  const mutation = op.operation === OperationTypeNode.MUTATION;
  const refused = scopeRefusal(user.scopes, op, mutation);
  if (refused !== undefined) {
    send(200, { data: null, errors: [refused] }, headers());
    return;
  }
  if (mutation && user.access === "read") {
    send(
      200,
      {
        data: null,
        errors: [
          { type: "FORBIDDEN", message: "Resource not accessible by personal access token" },
        ],
      },
      headers(),
    );
    return;
  }
  const now = ep.store.clock.now();
  const cost = mutation ? 1 : queryCost(doc, op, variables);
  const decision = ep.budget.charge(now, cost, mutation);
  if (!decision.ok) {
    ep.stats.rateLimited();
    if (decision.kind === "secondary") {
      send(
        403,
        {
          message:
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          documentation_url:
            "https://docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#secondary-rate-limits",
        },
        {
          ...limitHeaders(ep, decision.state),
          "retry-after": String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))),
        },
      );
      return;
    }
    send(
      200,
      {
        data: null,
        errors: [
          {
            type: "RATE_LIMITED",
            message: `API rate limit already exceeded for user ID ${user.user.id}.`,
          },
        ],
      },
      { ...limitHeaders(ep, decision.state), "x-ratelimit-remaining": "0" },
    );
    return;
  }
  const onItemChange = ep.onItemChange;
  const root = createRoot({
    store: ep.store,
    projects: ep.projects,
    ...(onItemChange !== undefined && {
      changed: (p: ProjectRecord, it: ItemRecord, c: ItemChange) => {
        onItemChange(p, it, c, user.user);
      },
    }),
    caller: {
      login: user.user.login,
      access: user.access,
      fineGrained: user.scopes === "fine-grained",
    },
  });
  const rateLimit = (): Body => {
    const s = ep.budget.peek(ep.store.clock.now());
    return {
      cost,
      limit: s.limit,
      nodeCount: 0,
      remaining: s.remaining,
      used: s.used,
      resetAt: new Date(s.resetAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
  };
  const result = await execute({
    schema: projectsSchema(),
    document: doc,
    rootValue: mutation
      ? root.mutation
      : {
          ...root.query,
          rateLimit,
          viewer: () =>
            (root.query.user as (a: { login: string }) => unknown)({ login: user.user.login }),
        },
    variableValues: variables,
    operationName: typeof payload.operationName === "string" ? payload.operationName : undefined,
  });
  if (mutation) {
    ep.store.version++;
    ep.stats.write();
  }
  const body: Body = { data: result.data ?? null };
  if (result.errors !== undefined && result.errors.length > 0)
    body.errors = result.errors.map((e) => {
      const original = e.originalError;
      const type = original instanceof GqlError ? original.type : undefined;
      return {
        ...(type === undefined ? {} : { type }),
        path: e.path,
        locations: e.locations,
        message: e.message,
      };
    });
  send(200, body, headers());
}

/**
 * A classic token without the Projects scope its operation needs: GitHub's INSUFFICIENT_SCOPES
 * error for the first Projects (v2) field the operation selects (`projectV2`, `projectsV2`,
 * `projectItems`, a `…ProjectV2…` mutation), checked before anything runs.
 */
function scopeRefusal(
  scopes: TokenScopes,
  op: OperationDefinitionNode,
  mutation: boolean,
): Body | undefined {
  let field: { name: string; line: number; column: number } | undefined;
  visit(op, {
    Field(node) {
      if (field !== undefined || !/projectV2|projectsV2|projectItems/i.test(node.name.value))
        return;
      const loc = node.loc?.startToken;
      field = { name: node.name.value, line: loc?.line ?? 1, column: loc?.column ?? 1 };
    },
  });
  if (field === undefined) return undefined;
  const message = missingProjectScope(scopes, field.name, mutation);
  if (message === undefined) return undefined;
  return {
    type: "INSUFFICIENT_SCOPES",
    locations: [{ line: field.line, column: field.column }],
    message,
  };
}

function caller(
  ep: GraphqlEndpoint,
  req: IncomingMessage,
): { user: UserRecord; access: TokenAccess; scopes: TokenScopes } | undefined {
  const m = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  for (const t of ep.tokens) {
    if (!tokensEqual(m?.[1], t.token)) continue;
    const user = findUser(ep.store, t.login);
    if (user !== undefined) return { user, access: t.access, scopes: t.scopes };
  }
  return undefined;
}

function limitHeaders(
  ep: GraphqlEndpoint,
  s: { limit: number; used: number; remaining: number; resetAt: number },
): Record<string, string> {
  return {
    "x-ratelimit-limit": String(s.limit),
    "x-ratelimit-remaining": String(s.remaining),
    "x-ratelimit-used": String(s.used),
    "x-ratelimit-reset": String(Math.ceil(ep.store.clock.realAt(s.resetAt) / 1000)),
    "x-ratelimit-resource": "graphql",
  };
}
