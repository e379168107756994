import { describe, expect, it } from "vitest";
import { PayloadInvalidError } from "../../core/errors.js";
import type { GithubClient } from "./client.js";
import type { GithubContext } from "./context.js";
import { readIssue } from "./reads.js";
import { nextLink, parse } from "./requests.js";
import { rawIssueSchema } from "./schema.js";

const noClient = {} as GithubClient;
const raw = {
  id: 5001,
  number: 12,
  title: "t",
  state: "open",
  labels: [],
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

describe("nextLink", () => {
  it("takes the rel=next URL exactly as given", () => {
    const link =
      '<https://api.github.com/repositories/1000/issues?per_page=3&page=2>; rel="next", <https://api.github.com/repositories/1000/issues?per_page=3&page=5>; rel="last"';
    expect(nextLink(link)).toBe(
      "https://api.github.com/repositories/1000/issues?per_page=3&page=2",
    );
  });

  it("is undefined on the last page", () => {
    expect(nextLink('<https://x/issues?page=1>; rel="first"')).toBeUndefined();
    expect(nextLink(undefined)).toBeUndefined();
  });
});

describe("readIssue", () => {
  it("skips pull requests but remembers every number's id", () => {
    const ctx: GithubContext = {
      client: noClient,
      ids: new Map(),
      nodeIds: new Map(),
      known: new Map(),
    };
    expect(readIssue(ctx, { ...raw, pull_request: { url: "x" } }, "op")).toBeUndefined();
    expect(readIssue(ctx, { ...raw, number: 13, id: 5002 }, "op")?.number).toBe(13);
    expect([...ctx.ids]).toEqual([
      [12, 5001],
      [13, 5002],
    ]);
  });

  it("turns a payload of the wrong shape into PayloadInvalidError naming the path", () => {
    expect(() =>
      parse(rawIssueSchema, { ...raw, number: "12" }, { operation: "issues.get" }),
    ).toThrow(PayloadInvalidError);
    expect(() => parse(rawIssueSchema, "<html>", { operation: "issues.get" })).toThrow(
      /issues\.get/,
    );
  });
});
