/** The matching rules one by one: order, reasons, ambiguity, assignability, inactive users. */
import { describe, expect, it } from "vitest";
import type { UserRef } from "../../../src/core/model.js";
import { matchUsers } from "../../../src/mapping/user-match.js";
import { parseUserMap } from "../../../src/mapping/users.js";

const row = (r: ReturnType<typeof matchUsers>) =>
  r.matches.map((m) => `${m.tinypm.login ?? "?"} → ${m.target.id ?? "?"} (${m.how})`);

describe("matchUsers rules", () => {
  it("prefers a visible email over a login, and compares emails case-insensitively", () => {
    const u = { login: "alice", email: "Alice@Example.com", name: "Alice Smith" };
    const targets = [
      { id: "alice", login: "alice" },
      { id: "ali", login: "ali", email: "alice@example.COM" },
    ];
    expect(row(matchUsers({ tinypmUsers: [u], targetUsers: targets }))).toEqual([
      "alice → ali (email)",
    ]);
  });

  it("matches a Jira account with a hidden email only through the user map", () => {
    const bob = { login: "bob", email: "bob@example.com", name: "Bob Stone" };
    const jira = [{ id: "acc-bob", name: "Bob Berg" }]; // email hidden, other display name
    const without = matchUsers({ tinypmUsers: [bob], targetUsers: jira });
    expect(without.matches).toEqual([]);
    expect(without.unmapped).toEqual([bob]);
    const map = parseUserMap("users:\n  bob: acc-bob\n", "users.yaml");
    expect(row(matchUsers({ tinypmUsers: [bob], targetUsers: jira, userMap: map }))).toEqual([
      "bob → acc-bob (map-file)",
    ]);
  });

  it("never uses a map entry or placeholder that is not assignable, and says why", () => {
    const bob = { login: "bob" };
    const map = parseUserMap(
      "policy: placeholder\nplaceholder: ghost\nusers:\n  bob: acc-gone\n  nobody: acc-x\n",
      "users.yaml",
    );
    const r = matchUsers({ tinypmUsers: [bob], targetUsers: [{ id: "acc-x" }], userMap: map });
    expect(r.matches).toEqual([]);
    expect(r.table.toTarget.size).toBe(0);
    expect(r.problems.map((p) => p.message)).toEqual([
      "acc-gone is not an assignable user of the target (never sent)",
      "no tinyPM user has the login nobody",
      "placeholder ghost is not an assignable user of the target (never sent)",
    ]);
  });

  it("reports two candidates with the same email as ambiguous, never picking one", () => {
    const u = { login: "carol", email: "team@example.com" };
    const a = { id: "a", login: "a", email: "team@example.com" };
    const b = { id: "b", login: "b", email: "TEAM@example.com" };
    const r = matchUsers({ tinypmUsers: [u], targetUsers: [a, b] });
    expect(r.matches).toEqual([]);
    expect(r.ambiguous).toEqual([{ tinypm: u, rule: "email", candidates: [a, b], rivals: [] }]);
    expect(r.unmapped).toEqual([u]);
  });

  it("matches a login equal to the email's local part or to the tinyPM login", () => {
    const users = [
      { login: "dk", email: "dan.king@example.com" },
      { login: "erin", email: "e@example.com" },
    ];
    const gh = [
      { id: "erin", login: "erin" },
      { id: "dan.king", login: "dan.king" },
    ];
    expect(row(matchUsers({ tinypmUsers: users, targetUsers: gh }))).toEqual([
      "dk → dan.king (login)",
      "erin → erin (login)",
    ]);
  });

  it("matches a unique display name (spaces and case folded) and nothing fuzzier", () => {
    const users: UserRef[] = [
      { login: "f", name: "Frank  Falk" },
      { login: "g", name: "Gina Gran" },
    ];
    const jira = [
      { id: "acc-f", name: "frank falk" },
      { id: "acc-g", name: "Gina Granström" },
    ];
    expect(row(matchUsers({ tinypmUsers: users, targetUsers: jira }))).toEqual([
      "f → acc-f (name)",
    ]);
  });

  it("matches inactive tinyPM users like others (their items still need an assignee)", () => {
    const old = { login: "old", email: "old@example.com", active: false };
    const r = matchUsers({
      tinypmUsers: [old],
      targetUsers: [{ id: "o", email: "old@example.com" }],
    });
    expect(row(r)).toEqual(["old → o (email)"]);
  });

  it("uses a target user once: the map file claims it before the automatic rules", () => {
    const users = [
      { login: "a", email: "x@example.com" },
      { login: "b", email: "b@example.com" },
    ];
    const map = parseUserMap("users:\n  b: x\n", "users.yaml");
    const r = matchUsers({
      tinypmUsers: users,
      targetUsers: [{ id: "x", login: "x", email: "x@example.com" }],
      userMap: map,
    });
    expect(row(r)).toEqual(["b → x (map-file)"]);
    expect(r.unmapped).toEqual([users[0]]);
  });
});
