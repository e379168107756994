import { JqlError, type JqlClause, type JqlOrder, type JqlQuery, type JqlValue } from "./jql.js";

/** What the evaluator needs to know about an issue (built by the search route). */
export interface JqlIssue {
  readonly id: number;
  readonly key: string;
  readonly projectId: string;
  readonly projectKey: string;
  readonly projectName: string;
  readonly parent?: { readonly id: number; readonly key: string } | undefined;
  readonly created: number;
  readonly updated: number;
  readonly status: { readonly id: string; readonly name: string };
  readonly issueType: { readonly id: string; readonly name: string };
  readonly priority: { readonly id: string; readonly name: string };
  readonly resolution?: { readonly id: string; readonly name: string } | undefined;
  readonly labels: readonly string[];
  readonly assigneeId?: string | undefined;
  readonly reporterId?: string | undefined;
  readonly sprints: readonly { readonly id: number; readonly name: string }[];
  readonly summary: string;
  readonly text: string;
  readonly property: (key: string) => unknown;
}

interface JqlEnvironment {
  readonly now: number;
  readonly projects: readonly {
    readonly id: string;
    readonly key: string;
    readonly name: string;
  }[];
  /** Whether an issue with this key or id exists (JQL refuses unknown keys with a 400). */
  readonly issueExists: (keyOrId: string) => boolean;
}

interface CompiledJql {
  /** Whether the query restricts the search (Jira refuses unbounded queries in /search/jql). */
  readonly bounded: boolean;
  matches(issue: JqlIssue): boolean;
  compare(a: JqlIssue, b: JqlIssue): number;
}

type Predicate = (issue: JqlIssue) => boolean;

const DATE_HELP =
  "Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.";

/** Turns a parsed query into a predicate and an order; throws JqlError for what Jira refuses. */
export function compileJql(query: JqlQuery, env: JqlEnvironment): CompiledJql {
  const predicates = query.clauses.map((c) => compileClause(c, env));
  const orders = query.orderBy.map(compileOrder);
  return {
    bounded: predicates.length > 0,
    matches: (issue) => predicates.every((p) => p(issue)),
    compare: (a, b) => {
      for (const order of orders) {
        const result = order(a, b);
        if (result !== 0) return result;
      }
      return b.id - a.id;
    },
  };
}

function text(value: JqlValue): string {
  return value.kind === "empty" ? "" : value.text;
}

function unsupported(clause: JqlClause): JqlError {
  return new JqlError(
    `The operator '${clause.operator.toUpperCase()}' is not supported by the '${clause.field}' field.`,
  );
}

function compileClause(clause: JqlClause, env: JqlEnvironment): Predicate {
  switch (clause.field) {
    case "project":
      return compileSet(
        clause,
        (i) => [i.projectKey, i.projectId, i.projectName],
        projectCheck(env),
      );
    case "key":
    case "issuekey":
    case "id":
      if (RANGE.has(clause.operator)) return compileKeyRange(clause, env);
      return compileSet(clause, (i) => [i.key, String(i.id)], issueCheck(env, clause.field));
    case "parent":
      return compileSet(
        clause,
        (i) => (i.parent ? [i.parent.key, String(i.parent.id)] : []),
        issueCheck(env, "parent"),
      );
    case "updated":
    case "updateddate":
      return compileDate(clause, (i) => i.updated, env.now);
    case "created":
    case "createddate":
      return compileDate(clause, (i) => i.created, env.now);
    case "status":
      return compileSet(clause, (i) => [i.status.id, i.status.name]);
    case "issuetype":
    case "type":
      return compileSet(clause, (i) => [i.issueType.id, i.issueType.name]);
    case "priority":
      return compileSet(clause, (i) => [i.priority.id, i.priority.name]);
    case "resolution":
      return compileSet(clause, (i) => (i.resolution ? [i.resolution.id, i.resolution.name] : []));
    case "labels":
      return compileSet(clause, (i) => i.labels);
    case "assignee":
      return compileSet(clause, (i) => (i.assigneeId ? [i.assigneeId] : []));
    case "reporter":
      return compileSet(clause, (i) => (i.reporterId ? [i.reporterId] : []));
    case "sprint":
      return compileSet(clause, (i) => i.sprints.flatMap((s) => [String(s.id), s.name]));
    case "summary":
    case "text":
      return compileContains(clause, clause.field === "summary" ? (i) => i.summary : (i) => i.text);
    case "issue.property":
      return compileSet(clause, (i) => propertyValues(i, clause));
    default:
      throw new JqlError(
        `Field '${clause.field}' does not exist or you do not have permission to view it.`,
      );
  }
}

function propertyValues(issue: JqlIssue, clause: JqlClause): string[] {
  let value: unknown = issue.property(clause.property?.key ?? "");
  for (const step of clause.property?.path ?? []) {
    value =
      typeof value === "object" && value !== null
        ? (value as Record<string, unknown>)[step]
        : undefined;
  }
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === "string") return [value];
  return [
    typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value),
  ];
}

function projectCheck(env: JqlEnvironment): (v: string) => void {
  return (v) => {
    const lower = v.toLowerCase();
    const known = env.projects.some(
      (p) => p.key.toLowerCase() === lower || p.id === v || p.name.toLowerCase() === lower,
    );
    if (!known) throw new JqlError(`The value '${v}' does not exist for the field 'project'.`);
  };
}

function issueCheck(env: JqlEnvironment, field: string): (v: string) => void {
  return (v) => {
    if (!env.issueExists(v)) {
      throw new JqlError(`An issue with key '${v}' does not exist for field '${field}'.`);
    }
  };
}

const RANGE = new Set(["<", "<=", ">", ">="]);

/**
 * `key > "WID-5"` (also `>=`, `<`, `<=`, `issuekey`, `id`): issues of the key's project whose
 * number compares so (Jira compares keys by number within their project); an id compares ids.
 */
function compileKeyRange(clause: JqlClause, env: JqlEnvironment): Predicate {
  const raw = text(clause.values[0] ?? { kind: "empty" });
  issueCheck(env, clause.field)(raw);
  const byId = /^\d+$/.test(raw);
  const [project, number] = raw.toUpperCase().split("-");
  const bound = byId ? Number(raw) : Number(number);
  const numberOf = (i: JqlIssue): number =>
    byId ? i.id : Number(i.key.toUpperCase().split("-")[1] ?? Number.NaN);
  const compare = (n: number): boolean =>
    clause.operator === "<"
      ? n < bound
      : clause.operator === "<="
        ? n <= bound
        : clause.operator === ">"
          ? n > bound
          : n >= bound;
  return (i) => (byId || i.projectKey.toUpperCase() === project) && compare(numberOf(i));
}

/** Equality-style operators over a multi-valued, case-insensitive field. */
function compileSet(
  clause: JqlClause,
  get: (issue: JqlIssue) => readonly string[],
  check?: (value: string) => void,
): Predicate {
  const wanted = clause.values.filter((v) => v.kind !== "empty").map((v) => text(v));
  if (check) wanted.forEach(check);
  const lower = new Set(wanted.map((v) => v.toLowerCase()));
  const hasAny = (i: JqlIssue): boolean => get(i).some((v) => lower.has(v.toLowerCase()));
  const isEmpty = (i: JqlIssue): boolean => get(i).length === 0;
  const wantsEmpty = clause.values.some((v) => v.kind === "empty");
  switch (clause.operator) {
    case "=":
    case "in":
      return (i) => hasAny(i) || (wantsEmpty && isEmpty(i));
    case "!=":
    case "not in":
      return (i) => !isEmpty(i) && !hasAny(i);
    case "is":
      if (!wantsEmpty) throw unsupported(clause);
      return isEmpty;
    case "is not":
      if (!wantsEmpty) throw unsupported(clause);
      return (i) => !isEmpty(i);
    case ">":
    case ">=":
    case "<":
    case "<=":
    case "~":
    case "!~":
      throw unsupported(clause);
  }
}

function compileContains(clause: JqlClause, get: (issue: JqlIssue) => string): Predicate {
  const needle = text(clause.values[0] ?? { kind: "empty" }).toLowerCase();
  if (clause.operator === "~") return (i) => get(i).toLowerCase().includes(needle);
  if (clause.operator === "!~") return (i) => !get(i).toLowerCase().includes(needle);
  throw unsupported(clause);
}

function compileDate(clause: JqlClause, get: (issue: JqlIssue) => number, now: number): Predicate {
  if (clause.operator === "is" || clause.operator === "is not") {
    if (clause.values[0]?.kind !== "empty") throw unsupported(clause);
    return () => clause.operator === "is not";
  }
  const times = clause.values.map((v) => parseDate(v, clause.field, now));
  const t = times[0] ?? 0;
  switch (clause.operator) {
    case ">=":
      return (i) => get(i) >= t;
    case ">":
      return (i) => get(i) > t;
    case "<=":
      return (i) => get(i) <= t;
    case "<":
      return (i) => get(i) < t;
    case "=":
    case "in":
      return (i) => times.includes(get(i));
    case "!=":
    case "not in":
      return (i) => !times.includes(get(i));
    case "~":
    case "!~":
      throw unsupported(clause);
  }
}

/**
 * JQL date literals: `yyyy/MM/dd HH:mm`, `yyyy-MM-dd HH:mm`, `yyyy/MM/dd`, `yyyy-MM-dd` (read in
 * the user's time zone, UTC here, minute precision), an unquoted number of epoch milliseconds, or
 * a relative period such as `-15m`, `-2h`, `-1d`, `-1w`, `-4w 2d`.
 */
export function parseDate(value: JqlValue, field: string, now: number): number {
  const raw = value.kind === "empty" ? "" : value.text.trim();
  if (value.kind === "word" && /^-?\d+$/.test(raw)) return Number(raw);
  const abs = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?: (\d{1,2}):(\d{2}))?$/.exec(raw);
  if (abs !== null) {
    const [, y, mo, d, h, mi] = abs;
    return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0));
  }
  const rel = relativeMs(raw);
  if (rel !== undefined) return now + rel;
  throw new JqlError(`Date value '${raw}' for field '${field}' is invalid. ${DATE_HELP}`);
}

function relativeMs(raw: string): number | undefined {
  const match = /^([-+]?)((?:\d+[wdhm]\s*)+)$/.exec(raw);
  if (match === null) return undefined;
  const unit = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000 };
  let total = 0;
  for (const part of (match[2] ?? "").matchAll(/(\d+)([wdhm])/g)) {
    total += Number(part[1]) * unit[part[2] as keyof typeof unit];
  }
  return match[1] === "-" ? -total : total;
}

function compileOrder(order: JqlOrder): (a: JqlIssue, b: JqlIssue) => number {
  const sign = order.direction === "desc" ? -1 : 1;
  const pick = orderKey(order.field);
  return (a, b) => {
    const x = pick(a);
    const y = pick(b);
    return x < y ? -sign : x > y ? sign : 0;
  };
}

function orderKey(field: string): (issue: JqlIssue) => number | string {
  switch (field) {
    case "updated":
    case "updateddate":
      return (i) => i.updated;
    case "created":
    case "createddate":
      return (i) => i.created;
    case "key":
    case "issuekey":
      // Keys sort by project, then number (WID-10 after WID-9).
      return (i) => `${i.projectKey}-${String(Number(i.key.split("-")[1] ?? 0)).padStart(12, "0")}`;
    case "id":
    case "rank":
      return (i) => i.id;
    case "priority":
      return (i) => Number(i.priority.id);
    case "summary":
      return (i) => i.summary.toLowerCase();
    case "status":
      return (i) => i.status.name.toLowerCase();
    default:
      throw new JqlError(
        `Field '${field}' does not exist or you do not have permission to view it.`,
      );
  }
}
