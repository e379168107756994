/**
 * A pure parser for the JQL subset the sandbox understands: clauses joined by AND, each
 * `field operator value` (values: "quoted", 'quoted', bare words, numbers, lists, EMPTY), the
 * field `issue.property[key].path`, and `ORDER BY field [ASC|DESC], …`. Anything else is refused
 * with a 400-style message shaped like Jira's.
 */

export class JqlError extends Error {
  override readonly name = "JqlError";
}

type JqlOperator =
  "=" | "!=" | ">" | ">=" | "<" | "<=" | "~" | "!~" | "in" | "not in" | "is" | "is not";

export type JqlValue =
  | { readonly kind: "string"; readonly text: string }
  | { readonly kind: "word"; readonly text: string }
  | { readonly kind: "empty" };

export interface JqlClause {
  /** Lower-cased field name (`project`, `key`, `updated`, …) or `issue.property`. */
  readonly field: string;
  /** For `issue.property[key].path`. */
  readonly property?: { readonly key: string; readonly path: readonly string[] } | undefined;
  readonly operator: JqlOperator;
  readonly values: readonly JqlValue[];
}

export interface JqlOrder {
  readonly field: string;
  readonly direction: "asc" | "desc";
}

export interface JqlQuery {
  readonly clauses: readonly JqlClause[];
  readonly orderBy: readonly JqlOrder[];
}

interface Token {
  readonly kind: "word" | "string" | "op" | "(" | ")" | ",";
  readonly text: string;
  readonly at: number;
}

const OPERATORS = ["!=", ">=", "<=", "!~", "=", ">", "<", "~"];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      const end = readString(text, i);
      tokens.push({ kind: "string", text: unescape(text.slice(i + 1, end)), at: i });
      i = end + 1;
    } else if (c === "(" || c === ")" || c === ",") {
      tokens.push({ kind: c, text: c, at: i });
      i++;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (op !== undefined) {
        tokens.push({ kind: "op", text: op, at: i });
        i += op.length;
        continue;
      }
      const match = /^[^\s()",'=!<>~]+/.exec(text.slice(i));
      if (match === null) throw syntax(`Unexpected character '${c}'`, i);
      tokens.push({ kind: "word", text: match[0], at: i });
      i += match[0].length;
    }
  }
  return tokens;
}

function readString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text.charAt(i) === "\\") i++;
    else if (text.charAt(i) === text.charAt(start)) return i;
  }
  throw syntax("The quoted string is not terminated", start);
}

function unescape(raw: string): string {
  return raw.replace(/\\(.)/g, "$1");
}

function syntax(message: string, at: number): JqlError {
  return new JqlError(`Error in the JQL Query: ${message}. (line 1, character ${at + 1})`);
}

/** Parses a JQL text into clauses and an order; throws JqlError with a Jira-like message. */
export function parseJql(text: string): JqlQuery {
  const tokens = tokenize(text);
  const parser = { tokens, pos: 0 };
  const clauses: JqlClause[] = [];
  const orderBy: JqlOrder[] = [];
  while (parser.pos < tokens.length) {
    const token = peek(parser);
    if (isWord(token, "order")) {
      parser.pos++;
      expectWord(parser, "by");
      orderBy.push(...parseOrder(parser));
      break;
    }
    if (clauses.length > 0) {
      if (isWord(token, "or") || isWord(token, "not") || token?.kind === "(") {
        throw new JqlError(
          `Error in the JQL Query: the sandbox supports only AND between clauses ('${token?.text ?? ""}' at character ${(token?.at ?? 0) + 1} is not supported).`,
        );
      }
      expectWord(parser, "and");
    }
    clauses.push(parseClause(parser));
  }
  if (parser.pos < tokens.length) {
    const extra = tokens[parser.pos];
    throw syntax(
      `Expecting either a ',' or end of query but got '${extra?.text ?? ""}'`,
      extra?.at ?? 0,
    );
  }
  return { clauses, orderBy };
}

interface Parser {
  readonly tokens: readonly Token[];
  pos: number;
}

function peek(p: Parser): Token | undefined {
  return p.tokens[p.pos];
}

function isWord(token: Token | undefined, word: string): boolean {
  return token?.kind === "word" && token.text.toLowerCase() === word;
}

function expectWord(p: Parser, word: string): void {
  const token = peek(p);
  if (!isWord(token, word)) {
    throw syntax(
      `Expecting '${word.toUpperCase()}' but got '${token?.text ?? "end of query"}'`,
      token?.at ?? 0,
    );
  }
  p.pos++;
}

function parseClause(p: Parser): JqlClause {
  const fieldToken = peek(p);
  if (fieldToken?.kind !== "word" && fieldToken?.kind !== "string") {
    throw syntax(
      `Expecting a field name but got '${fieldToken?.text ?? "end of query"}'`,
      fieldToken?.at ?? 0,
    );
  }
  p.pos++;
  const { field, property } = parseField(fieldToken);
  const operator = parseOperator(p);
  const values = operator === "in" || operator === "not in" ? parseList(p) : [parseValue(p)];
  return { field, property, operator, values };
}

function parseField(token: Token): Pick<JqlClause, "field" | "property"> {
  const match = /^issue\.property\[([^\]]+)\]\.(.+)$/i.exec(token.text);
  if (match !== null) {
    const key = match[1]?.trim() ?? "";
    return { field: "issue.property", property: { key, path: (match[2] ?? "").split(".") } };
  }
  return { field: token.text.toLowerCase(), property: undefined };
}

function parseOperator(p: Parser): JqlOperator {
  const token = peek(p);
  p.pos++;
  if (token?.kind === "op") return token.text as JqlOperator;
  if (isWord(token, "in")) return "in";
  if (isWord(token, "not") && isWord(peek(p), "in")) {
    p.pos++;
    return "not in";
  }
  if (isWord(token, "is")) {
    if (isWord(peek(p), "not")) {
      p.pos++;
      return "is not";
    }
    return "is";
  }
  throw syntax(
    `Expecting operator but got '${token?.text ?? "end of query"}'. Valid operators are '=', '!=', '<', '>', '<=', '>=', '~', '!~', 'IN', 'NOT IN', 'IS' and 'IS NOT'`,
    token?.at ?? 0,
  );
}

function parseValue(p: Parser): JqlValue {
  const token = peek(p);
  if (token?.kind === "string") {
    p.pos++;
    return { kind: "string", text: token.text };
  }
  if (token?.kind === "word") {
    p.pos++;
    if (["empty", "null"].includes(token.text.toLowerCase())) return { kind: "empty" };
    if (peek(p)?.kind === "(") {
      throw new JqlError(
        `Error in the JQL Query: the function '${token.text}()' is not supported by the sandbox. (line 1, character ${token.at + 1})`,
      );
    }
    return { kind: "word", text: token.text };
  }
  throw syntax(
    `Expecting either a value, list or function but got '${token?.text ?? "end of query"}'`,
    token?.at ?? 0,
  );
}

function parseList(p: Parser): JqlValue[] {
  const open = peek(p);
  if (open?.kind !== "(") {
    throw syntax(`Expecting '(' but got '${open?.text ?? "end of query"}'`, open?.at ?? 0);
  }
  p.pos++;
  const values = [parseValue(p)];
  while (peek(p)?.kind === ",") {
    p.pos++;
    values.push(parseValue(p));
  }
  const close = peek(p);
  if (close?.kind !== ")") {
    throw syntax(`Expecting ')' but got '${close?.text ?? "end of query"}'`, close?.at ?? 0);
  }
  p.pos++;
  return values;
}

function parseOrder(p: Parser): JqlOrder[] {
  const order: JqlOrder[] = [];
  for (;;) {
    const token = peek(p);
    if (token?.kind !== "word" && token?.kind !== "string") {
      throw syntax(
        `Expecting a field name in ORDER BY but got '${token?.text ?? "end of query"}'`,
        token?.at ?? 0,
      );
    }
    p.pos++;
    let direction: "asc" | "desc" = "asc";
    if (isWord(peek(p), "asc") || isWord(peek(p), "desc")) {
      direction = (peek(p)?.text.toLowerCase() ?? "asc") as "asc" | "desc";
      p.pos++;
    }
    order.push({ field: token.text.toLowerCase(), direction });
    if (peek(p)?.kind !== ",") return order;
    p.pos++;
  }
}
