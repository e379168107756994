/**
 * The user-map skeleton `tinypm-sync users --write` produces (pure): every match filled in with
 * how it was made, every open case (ambiguous, unmatched, refused map entry) as a commented
 * placeholder naming the candidates, so that uncommenting a line and giving the target id is all
 * there is to do. The text parses with `parseUserMap` as written.
 */
import type { UserRef } from "../core/model.js";
import type { MatchUsersResult } from "./user-match.js";
import type { UnmappedPolicy } from "./users.js";

export interface UserMapFileOptions {
  readonly job: string;
  /** "GitHub acme/widgets", "Jira project WID". */
  readonly target: string;
  readonly policy: UnmappedPolicy;
  readonly placeholder?: string | undefined;
  readonly tinypmUsers: readonly UserRef[];
  readonly targetUsers: readonly UserRef[];
  readonly result: MatchUsersResult;
}

/** A YAML plain scalar when safe, else a double-quoted one. */
export function yamlScalar(s: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s)
    ? s
    : JSON.stringify(s);
}

/** A user for a comment or a listing: `acc-bob "Bob Berg" <bob@example.com>`; one line. */
export function describeUser(u: UserRef): string {
  const parts = [u.login ?? u.id ?? "?"]; // tinyPM and GitHub by login, Jira by accountId
  if (u.name !== undefined) parts.push(`"${u.name}"`);
  if (u.email !== undefined) parts.push(`<${u.email}>`);
  if (u.active === false) parts.push("(inactive)");
  return parts.join(" ").replace(/[\r\n]+/g, " ");
}

/** The user-map text (see the module comment). */
export function renderUserMapFile(o: UserMapFileOptions): string {
  const { result } = o;
  const lines = [
    `# User map for job "${o.job}" → ${o.target}, written by \`tinypm-sync users --write\`.`,
    "# Filled entries were matched automatically (the comment says how); check them.",
    "# Open cases are commented out: uncomment the line and put the target id between the quotes.",
    `policy: ${o.policy} # unmapped users: skip | placeholder | fail`,
    o.placeholder === undefined
      ? "# placeholder: some-bot-account   # the target account used under `policy: placeholder`"
      : `placeholder: ${yamlScalar(o.placeholder)}`,
    "users:",
  ];
  const real = result.matches.filter((m) => m.how !== "placeholder");
  for (const u of o.tinypmUsers) {
    if (u.login === undefined) continue;
    const login = yamlScalar(u.login);
    const m = real.find((x) => x.tinypm === u);
    if (m !== undefined) {
      const id = m.target.id ?? m.target.login ?? "";
      lines.push(
        `  ${login}: ${yamlScalar(id)} # ${m.how}${m.reason === undefined ? "" : `: ${m.reason}`}`,
      );
      continue;
    }
    lines.push(`  # ${login}: ""  # ${openReason(u, result)}`);
  }
  lines.push("# Assignable target users:", ...o.targetUsers.map((t) => `#   ${describeUser(t)}`));
  return `${lines.join("\n")}\n`;
}

function openReason(u: UserRef, result: MatchUsersResult): string {
  const who = describeUser(u);
  const problem = result.problems.find((p) => p.tinypm === u.login);
  if (problem !== undefined) return `${who}; map entry refused: ${problem.message}`;
  const amb = result.ambiguous.find((a) => a.tinypm === u);
  if (amb !== undefined) {
    const cands = amb.candidates.map(describeUser).join(", ");
    const rivals = amb.rivals.map((r) => r.login ?? r.name ?? "?").join(", ");
    return `${who}; ambiguous by ${amb.rule}: ${cands}${rivals === "" ? "" : ` (also claimed by ${rivals})`}`;
  }
  return `${who}; unmatched`;
}
