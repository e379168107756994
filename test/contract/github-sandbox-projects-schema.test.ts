import { readFileSync } from "node:fs";
import {
  buildASTSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  parse,
  type GraphQLNamedType,
} from "graphql";
import { describe, expect, it } from "vitest";
import { projectsSchema } from "../../src/sandboxes/github/graphql/sdl.js";

/**
 * The sandbox's SDL against GitHub's published schema (`@octokit/graphql-schema`, a 2025-02
 * snapshot): every type, field, argument and input field the sandbox declares exists there with
 * the same type. Newer than the snapshot, and so listed apart: the option input's `id`.
 */
const NEWER_THAN_SNAPSHOT = new Set(["ProjectV2SingleSelectFieldOptionInput.id"]);

function githubSchema() {
  // The package exports only its ESM entry (which parses a 5 MB introspection JSON at import):
  // its SDL file is read from beside it.
  const entry = import.meta.resolve("@octokit/graphql-schema");
  // The snapshot declares `EnterpriseOwnerInfo.repositoryDeployKeySetting` twice: SDL validation
  // is skipped for it.
  return buildASTSchema(parse(readFileSync(new URL("schema.graphql", entry), "utf8")), {
    assumeValidSDL: true,
  });
}

function fieldsOf(t: GraphQLNamedType): Map<string, string> {
  const out = new Map<string, string>();
  if (isObjectType(t) || isInterfaceType(t))
    for (const f of Object.values(t.getFields())) {
      out.set(f.name, String(f.type));
      for (const a of f.args) out.set(`${f.name}(${a.name})`, String(a.type));
    }
  if (isInputObjectType(t))
    for (const f of Object.values(t.getFields())) out.set(f.name, String(f.type));
  if (isEnumType(t)) for (const v of t.getValues()) out.set(v.name, "enum");
  if (isUnionType(t)) for (const m of t.getTypes()) out.set(m.name, "member");
  return out;
}

describe("GitHub sandbox GraphQL schema", () => {
  it("declares only types and fields GitHub's schema has, with the same types", () => {
    const github = githubSchema();
    const mismatches: string[] = [];
    for (const t of Object.values(projectsSchema().getTypeMap())) {
      if (t.name.startsWith("__") || ["String", "Int", "Float", "Boolean", "ID"].includes(t.name))
        continue;
      const theirs = github.getType(t.name);
      if (theirs === undefined) {
        mismatches.push(`${t.name}: no such type`);
        continue;
      }
      const theirFields = fieldsOf(theirs);
      for (const [name, type] of fieldsOf(t)) {
        if (NEWER_THAN_SNAPSHOT.has(`${t.name}.${name}`)) continue;
        const other = theirFields.get(name);
        if (other !== type)
          mismatches.push(`${t.name}.${name}: ours ${type}, GitHub's ${other ?? "missing"}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
