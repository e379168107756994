/** What `tinypm-sync users` prints: the people on both sides and the match table, text or JSON. */
import type { UserRef } from "../core/model.js";
import { systemLabel } from "../core/system-label.js";
import { escapeTerminal } from "../report/escape.js";
import { describeUser } from "../mapping/user-map-write.js";
import type { MatchUsersResult } from "../mapping/user-match.js";
import type { UnmappedPolicy } from "../mapping/users.js";

export interface UsersView {
  readonly job: string;
  readonly targetSystem: "github" | "jira";
  /** "acme/widgets" or the Jira project key. */
  readonly targetName: string;
  readonly policy: UnmappedPolicy;
  readonly tinypmUsers: readonly UserRef[];
  readonly targetUsers: readonly UserRef[];
  readonly result: MatchUsersResult;
}

const key = (u: UserRef): string => u.login ?? u.id ?? u.name ?? "?";

/** The `--json` document (one object; stable field names, see docs/commands.md). */
export function usersJson(v: UsersView): Record<string, unknown> {
  const r = v.result;
  const matched = new Set(r.matches.filter((m) => m.how !== "placeholder").map((m) => m.tinypm));
  return {
    job: v.job,
    target: v.targetSystem,
    policy: v.policy,
    tinypmUsers: v.tinypmUsers.map((u) => ({
      login: u.login ?? null,
      name: u.name ?? null,
      email: u.email ?? null,
      active: u.active !== false,
    })),
    targetUsers: v.targetUsers.map((u) => ({
      id: u.id ?? null,
      ...(v.targetSystem === "github" && { login: u.login ?? null }),
      name: u.name ?? null,
      email: u.email ?? null,
    })),
    matched: r.matches
      .filter((m) => m.how !== "placeholder")
      .map((m) => ({
        tinypm: key(m.tinypm),
        target: m.target.id ?? null,
        how: m.how,
        reason: m.reason ?? null,
      })),
    ambiguous: r.ambiguous.map((a) => ({
      tinypm: key(a.tinypm),
      rule: a.rule,
      candidates: a.candidates.map((c) => c.id ?? null),
      sharedWith: a.rivals.map(key),
    })),
    unmatched: v.tinypmUsers.filter((u) => !matched.has(u)).map(key),
    placeholder: r.matches.filter((m) => m.how === "placeholder").map((m) => key(m.tinypm)),
    problems: r.problems.map((p) => ({ user: p.tinypm, target: p.target, message: p.message })),
  };
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((row) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/** The text view: both user lists, then matched, ambiguous, unmatched, with a hint per case. */
export function usersText(v: UsersView): string[] {
  const t = systemLabel(v.targetSystem);
  const r = v.result;
  const real = r.matches.filter((m) => m.how !== "placeholder");
  const matched = new Set(real.map((m) => m.tinypm));
  const ambiguous = new Set(r.ambiguous.map((a) => a.tinypm));
  const unmatched = v.tinypmUsers.filter((u) => !matched.has(u) && !ambiguous.has(u));
  const lines = [
    `Job ${v.job} → ${t} ${v.targetName} (user policy: ${v.policy})`,
    "",
    `tinyPM users (${v.tinypmUsers.length}):`,
    ...v.tinypmUsers.map((u) => `  ${describeUser(u)}`),
    "",
    `${t} users who can be assigned (${v.targetUsers.length}):`,
    ...v.targetUsers.map(
      (u) => `  ${describeUser(u)}${u.email === undefined ? " (email not visible)" : ""}`,
    ),
    "",
    `Matched (${real.length}):`,
    ...table(
      real.map((m) => [
        "  " + key(m.tinypm),
        "→",
        m.target.id ?? "?",
        `by ${m.how}`,
        m.reason ?? "",
      ]),
    ),
  ];
  if (r.ambiguous.length > 0)
    lines.push(
      "",
      `Ambiguous (${r.ambiguous.length}) — never guessed; pick one in the user map:`,
      ...r.ambiguous.map(
        (a) =>
          `  ${key(a.tinypm)}  by ${a.rule}: ${a.candidates.map(describeUser).join(", ")}${a.rivals.length === 0 ? "" : ` (shared with ${a.rivals.map(key).join(", ")})`}`,
      ),
    );
  if (unmatched.length > 0)
    lines.push(
      "",
      `Unmatched (${unmatched.length}):`,
      ...unmatched.map((u) => `  ${describeUser(u)}`),
    );
  if (r.problems.length > 0)
    lines.push(
      "",
      "User map entries not used:",
      ...r.problems.map((p) => `  ${p.tinypm}: ${p.target} — ${p.message}`),
    );
  const open = v.tinypmUsers.length - real.length;
  lines.push(
    "",
    open === 0
      ? "Every tinyPM user has a match."
      : `${open} tinyPM user${open === 1 ? "" : "s"} without a match: ${policyEffect(v.policy)}. Write a user map to fill them in: --write users.yaml`,
  );
  return lines.map(escapeTerminal); // names and emails are remote data
}

function policyEffect(policy: UnmappedPolicy): string {
  if (policy === "fail") return "migrate and sync stop before writing (policy fail)";
  if (policy === "placeholder")
    return "their items get the placeholder assignee (policy placeholder)";
  return "their items lose that assignee (policy skip)";
}
