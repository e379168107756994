/**
 * GitHub logins are case-insensitive (`Octocat` is `octocat`, and GitHub answers the canonical
 * spelling); Jira accountIds are case-sensitive. The user map and the lookups follow both.
 */
import { describe, expect, it } from "vitest";
import { createUserLookup } from "../../../src/mapping/user-lookup.js";
import { matchUsers } from "../../../src/mapping/user-match.js";
import { parseUserMap } from "../../../src/mapping/users.js";

const bob = { login: "bob", name: "Bob Stone" };
const alice = { login: "alice", name: "Alice Smith" };
const github = [
  { id: "octocat", login: "octocat" },
  { id: "alice", login: "alice" },
];

describe("GitHub login case in the user map", () => {
  it("a map value in another case names the canonical login, both ways, without a reassign", () => {
    const map = parseUserMap("users:\n  bob: OctoCat\n", "users.yaml");
    const r = matchUsers({ tinypmUsers: [bob], targetUsers: github, userMap: map });
    expect(r.problems).toEqual([]);
    expect(r.matches.map((m) => m.target.id)).toEqual(["octocat"]);
    const lookup = createUserLookup(r.table);
    // Sent as GitHub spells it, so what GitHub answers is what was sent.
    expect(lookup.toTarget(bob)).toMatchObject({ id: "octocat" });
    // An assignee or author read in any case is the same tinyPM user.
    expect(lookup.toTinypm({ id: "octocat", login: "octocat" })?.login).toBe("bob");
    expect(lookup.toTinypm({ id: "OctoCat", login: "OctoCat" })?.login).toBe("bob");
  });

  it("a map key in another case names the tinyPM user (one login equal regardless of case)", () => {
    const map = parseUserMap("users:\n  Alice: octocat\n", "users.yaml");
    const r = matchUsers({ tinypmUsers: [alice, bob], targetUsers: github, userMap: map });
    expect(r.problems).toEqual([]);
    expect(r.matches).toEqual([
      expect.objectContaining({ tinypm: alice, how: "map-file", target: github[0] }),
    ]);
  });

  it("a map key matching two tinyPM logins regardless of case but neither exactly is refused", () => {
    const twins = [{ login: "alice" }, { login: "ALICE" }];
    const map = parseUserMap("users:\n  Alice: octocat\n", "users.yaml");
    const r = matchUsers({ tinypmUsers: twins, targetUsers: github, userMap: map });
    expect(r.matches.filter((m) => m.how === "map-file")).toEqual([]);
    expect(r.problems.map((p) => p.message)).toEqual(["no tinyPM user has the login Alice"]);
  });
});

describe("Jira accountIds are case-sensitive", () => {
  const jira = [{ id: "5b10ac8d82e05b22cc7d4ef5", name: "Bob Berg" }];

  it("a map value in another case is not that account", () => {
    const map = parseUserMap("users:\n  bob: 5B10AC8D82E05B22CC7D4EF5\n", "users.yaml");
    const r = matchUsers({ tinypmUsers: [bob], targetUsers: jira, userMap: map });
    expect(r.matches).toEqual([]);
    expect(r.problems).toEqual([
      expect.objectContaining({ tinypm: "bob", target: "5B10AC8D82E05B22CC7D4EF5" }),
    ]);
  });

  it("an accountId read in another case is not the mapped user", () => {
    const map = parseUserMap("users:\n  bob: 5b10ac8d82e05b22cc7d4ef5\n", "users.yaml");
    const lookup = createUserLookup(
      matchUsers({ tinypmUsers: [bob], targetUsers: jira, userMap: map }).table,
    );
    expect(lookup.toTinypm({ id: "5b10ac8d82e05b22cc7d4ef5" })?.login).toBe("bob");
    expect(lookup.toTinypm({ id: "5B10AC8D82E05B22CC7D4EF5" })).toBeUndefined();
  });
});
