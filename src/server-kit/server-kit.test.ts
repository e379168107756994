import { describe, expect, it } from "vitest";
import { createFaultInjector, parseFaultSpec, routeMatches } from "./faults.js";
import { createRouter } from "./router.js";
import { tokensEqual } from "./tokens.js";

describe("parseFaultSpec", () => {
  it("reads kinds, values, rates and routes", () => {
    expect(parseFaultSpec("500:0.1, latency=50:0.2@GET /userstory/*, 429=2@/repos/**")).toEqual([
      { kind: "500", value: undefined, rate: 0.1, method: undefined, route: undefined },
      { kind: "latency", value: 50, rate: 0.2, method: "GET", route: "/userstory/*" },
      { kind: "429", value: 2, rate: 1, method: undefined, route: "/repos/**" },
    ]);
  });

  it("names the valid kinds when a kind is unknown", () => {
    expect(() => parseFaultSpec("boom:0.1")).toThrow(
      /unknown kind "boom"; valid kinds: latency, 500/,
    );
  });

  it("refuses a rate outside 0..1", () => {
    expect(() => parseFaultSpec("500:2")).toThrow(/rate must be a number from 0 to 1/);
  });
});

describe("routeMatches", () => {
  it.each([
    ["/userstory/*", "/userstory/12", true],
    ["/userstory/*", "/userstory/12/tasks", false],
    ["/repos/**", "/repos/acme/widgets/issues", true],
    ["/task/*/comments", "/task/3/comments?token=x", true],
  ])("%s against %s is %s", (pattern, path, expected) => {
    expect(routeMatches(pattern, path)).toBe(expected);
  });
});

describe("createFaultInjector", () => {
  it("makes the same decisions for the same seed", () => {
    const rules = parseFaultSpec("500:0.3,reset:0.2");
    const run = (seed: number) => {
      const f = createFaultInjector(rules, seed);
      return Array.from({ length: 50 }, () =>
        f
          .decide("GET", "/x")
          .map((r) => r.kind)
          .join("+"),
      );
    };
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
    expect(run(7).filter((d) => d !== "").length).toBeGreaterThan(0);
  });

  it("applies at most one failure per request, after any latency", () => {
    const f = createFaultInjector(parseFaultSpec("latency=1,500,503"), 1);
    expect(f.decide("GET", "/x").map((r) => r.kind)).toEqual(["latency", "500"]);
  });
});

describe("createRouter", () => {
  const router = createRouter<string>()
    .add("GET", "/task/:id", "get")
    .add("PUT", "/task/:id", "put");

  it("finds a route and its params", () => {
    expect(router.match("PUT", "/task/42")).toEqual({
      kind: "found",
      handler: "put",
      params: { id: "42" },
      route: "/task/:id",
    });
  });

  it("lists the allowed methods when only the method is wrong", () => {
    expect(router.match("POST", "/task/42")).toEqual({
      kind: "method-not-allowed",
      allowed: ["GET", "PUT"],
    });
  });

  it("says not found for an unknown path", () => {
    expect(router.match("GET", "/nope")).toEqual({ kind: "not-found" });
  });
});

describe("tokensEqual", () => {
  it("accepts the exact token only", () => {
    expect(tokensEqual("abc", "abc")).toBe(true);
    expect(tokensEqual("abd", "abc")).toBe(false);
    expect(tokensEqual("", "abc")).toBe(false);
    expect(tokensEqual(undefined, "abc")).toBe(false);
  });
});
