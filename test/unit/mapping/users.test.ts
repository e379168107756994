/** User maps and automatic matching. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MappingError } from "../../../src/core/errors.js";
import { loadUserMap, matchUsers, parseUserMap } from "../../../src/mapping/users.js";
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

  it("matches by map file, login, email and display name, saying how", () => {
    expect(result.matches.map((m) => [m.tinypm.login, m.target.id, m.how])).toEqual([
      ["jdoe", "jane-gh", "map-file"],
      ["bob", "bob", "login"],
      ["cw", "carol", "email"],
      ["dk", "dking", "name"],
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

  it("uses each target user once", () => {
    const twins = [
      { id: "1", login: "a", name: "Same Name" },
      { id: "2", login: "b", name: "Same Name" },
    ];
    const r = matchUsers({ tinypmUsers: twins, targetUsers: [{ id: "x", name: "same name" }] });
    expect(r.matches).toHaveLength(1);
    expect(r.unmapped).toEqual([twins[1]]);
  });

  it("maps unmapped users to the placeholder under policy placeholder", () => {
    const map = parseUserMap("policy: placeholder\nplaceholder: bot\nusers: {}\n", "users.yaml");
    const r = matchUsers({ tinypmUsers: [tinypm[4]!], targetUsers: [], userMap: map });
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
      'user: unknown key "user"; valid keys: $schema, policy, placeholder, users',
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
