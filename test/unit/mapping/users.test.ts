/** User maps and automatic matching. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MappingError } from "../../../src/core/errors.js";
import { matchUsers } from "../../../src/mapping/user-match.js";
import { loadUserMap, parseUserMap } from "../../../src/mapping/users.js";
import { mappingPath } from "./fixtures.js";

const tinypm = [
  { id: "1", login: "jdoe", name: "Jane Doe", email: "jane@example.com" },
  { id: "2", login: "bob", name: "Bob Stone", email: "bob@example.com" },
  { id: "3", login: "cw", name: "Carol White", email: "carol@corp.example" },
  { id: "4", login: "dk", name: "Dan King", email: "dan@example.com" },
  { id: "5", login: "eve", name: "Eve", email: "eve@example.com" },
];
const github = [
  { id: "jane-gh", login: "jane-gh" },
  { id: "bob", login: "bob" },
  { id: "carol", login: "carol", email: "CAROL@corp.example" },
  { id: "dking", login: "dking", name: "dan king" },
];

describe("matchUsers", () => {
  const userMap = parseUserMap("users:\n  jdoe: jane-gh\n", "users.yaml");
  const result = matchUsers({ tinypmUsers: tinypm, targetUsers: github, userMap });

  it("matches by map file, email, login and display name, saying how and on what", () => {
    expect(result.matches.map((m) => [m.tinypm.login, m.target.id, m.how, m.reason])).toEqual([
      ["jdoe", "jane-gh", "map-file", "users.jdoe: jane-gh"],
      ["bob", "bob", "login", "login bob = the tinyPM email's part before the @"],
      ["cw", "carol", "email", "email CAROL@corp.example"],
      ["dk", "dking", "name", 'name "dan king"'],
    ]);
  });

  it("returns the unmapped users", () => {
    expect(result.unmapped).toEqual([tinypm[4]]);
  });

  it("builds the table both ways", () => {
    expect(result.table.toTarget.get("cw")).toEqual(github[2]);
    expect(result.table.toTinypm.get("dking")).toEqual(tinypm[3]);
    expect(result.table.policy).toBe("skip");
  });

  // Was "uses each target user once" (the first twin got the account): a shared display name is
  // now never guessed, both twins stay unmatched and are reported as ambiguous.
  it("never guesses between tinyPM users who share a display name", () => {
    const twins = [
      { id: "1", login: "a", name: "Same Name" },
      { id: "2", login: "b", name: "Same Name" },
    ];
    const target = { id: "x", name: "same name" };
    const r = matchUsers({ tinypmUsers: twins, targetUsers: [target] });
    expect(r.matches).toEqual([]);
    expect(r.unmapped).toEqual(twins);
    expect(r.ambiguous).toEqual([
      { tinypm: twins[0], rule: "name", candidates: [target], rivals: [twins[1]] },
      { tinypm: twins[1], rule: "name", candidates: [target], rivals: [twins[0]] },
    ]);
  });

  it("maps unmapped users to the placeholder under policy placeholder", () => {
    const map = parseUserMap("policy: placeholder\nplaceholder: bot\nusers: {}\n", "users.yaml");
    // The placeholder must be an assignable target user (it was taken on trust before).
    const bot = { id: "bot", login: "bot" };
    const r = matchUsers({ tinypmUsers: [tinypm[4]!], targetUsers: [bot], userMap: map });
    expect(r.matches).toEqual([
      { tinypm: tinypm[4], target: { id: "bot", login: "bot" }, how: "placeholder" },
    ]);
    expect(r.unmapped).toEqual([tinypm[4]]);
    expect(r.table.toTarget.get("eve")).toEqual({ id: "bot", login: "bot" });
    expect(r.table.toTinypm.has("bot")).toBe(false);
  });

  it("lets the caller's policy override the file's", () => {
    const map = parseUserMap("policy: placeholder\nusers: {}\n", "users.yaml");
    expect(
      matchUsers({ tinypmUsers: [], targetUsers: [], userMap: map, policy: "fail" }).table.policy,
    ).toBe("fail");
  });
});

describe("user map files", () => {
  it("loads the shipped example", () => {
    const map = loadUserMap(mappingPath("users.example.yaml"));
    expect(map.policy).toBe("skip");
    expect(map.users.jdoe).toBe("jane-doe");
    expect(readFileSync(mappingPath("users.example.yaml"), "utf8")).toContain("placeholder");
  });

  it("reports every problem with path and choices", () => {
    const error = captureError(() => parseUserMap("policy: ignore\nuser: {}\n", "users.yaml"));
    expect(error).toBeInstanceOf(MappingError);
    expect(
      (error as MappingError).issues.map((i) => `${i.path.join(" > ")}: ${i.message}`),
    ).toEqual([
      'policy: found "ignore"; valid choices: skip, placeholder, fail',
      "users: missing; expected record",
      'user: unknown key "user"; did you mean "users"?',
    ]);
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
