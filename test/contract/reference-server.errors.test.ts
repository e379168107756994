import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import {
  childNames,
  textAt,
  xmlClient,
  type XmlClient,
  type XResponse,
} from "./support/tiny-xml.js";

interface Ctx {
  server: ReferenceServer;
  api: XmlClient;
}

function withServer(options: Parameters<typeof startReferenceServer>[0]): Ctx {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    ctx.server = await startReferenceServer({ generate: "small", ...options });
    ctx.api = xmlClient(ctx.server.url, ctx.server.token);
  });
  afterAll(async () => {
    await ctx.server.close();
  });
  return ctx;
}

/** Checks the `<error><status/><message/></error>` body and returns the message. */
function errorOf(r: XResponse, status: number): string {
  expect(r.status).toBe(status);
  expect(r.doc.name).toBe("error");
  expect(childNames(r.doc)).toEqual(["status", "message"]);
  expect(textAt(r.doc, "status")).toBe(String(status));
  return textAt(r.doc, "message") ?? "";
}

describe("reference server auth", () => {
  const ctx = withServer({ token: "0123456789abcdef0123456789abcdef" });

  it("accepts the header or the token query parameter", async () => {
    expect((await ctx.api.get("/users")).status).toBe(200);
    const q = await ctx.api.request("GET", `/users?token=${ctx.server.token}`, { token: null });
    expect(q.status).toBe(200);
  });

  it("answers 401 for a missing or wrong token, without echoing it", async () => {
    const missing = await ctx.api.request("GET", "/users", { token: null });
    expect(errorOf(missing, 401)).toBe("Missing or invalid API token");
    const wrong = await ctx.api.request("GET", "/users", { token: "wrong-token-value" });
    expect(errorOf(wrong, 401)).toBe("Missing or invalid API token");
    expect(wrong.body).not.toContain("wrong-token-value");
    const shorter = await ctx.api.request("GET", "/users", { token: ctx.server.token.slice(1) });
    expect(shorter.status).toBe(401);
  });
});

describe("reference server with the API disabled", () => {
  const ctx = withServer({ apiDisabled: true });

  it("answers 403 naming the switch", async () => {
    expect(errorOf(await ctx.api.get("/users"), 403)).toMatch(/^The API is disabled/);
  });
});

describe("reference server errors", () => {
  const ctx = withServer({ maxBodyBytes: 2048 });

  it("answers 404 naming the kind and id for unknown ids and parents", async () => {
    expect(errorOf(await ctx.api.get("/userstory/99"), 404)).toBe("User story 99 not found");
    expect(errorOf(await ctx.api.get("/user/99"), 404)).toBe("User 99 not found");
    expect(errorOf(await ctx.api.get("/project/9/userstories"), 404)).toBe("Project 9 not found");
    expect(errorOf(await ctx.api.get("/project/9/iterations"), 404)).toBe("Project 9 not found");
    expect(errorOf(await ctx.api.get("/iteration/77/userstories"), 404)).toBe(
      "Iteration 77 not found",
    );
    expect(errorOf(await ctx.api.get("/userstory/99/tasks"), 404)).toBe("User story 99 not found");
    expect(errorOf(await ctx.api.get("/task/999/comments"), 404)).toBe("Task 999 not found");
    expect(errorOf(await ctx.api.get("/task/abc"), 404)).toBe("Task abc not found");
    const put = await ctx.api.put("/userstory/99", "<userStory><name>x</name></userStory>");
    expect(errorOf(put, 404)).toBe("User story 99 not found");
    expect((await ctx.api.del("/task/999")).status).toBe(404);
  });

  it("answers 404 for an unknown path and 405 with Allow for a wrong method", async () => {
    expect(errorOf(await ctx.api.get("/nothing/here"), 404)).toContain("/nothing/here");
    const outside = await fetch(`${ctx.server.origin}/elsewhere`);
    expect(outside.status).toBe(404);
    const r = await ctx.api.request("PATCH", "/userstory/1");
    expect(errorOf(r, 405)).toContain("PATCH");
    expect(r.headers.get("allow")).toBe("GET, PUT, DELETE");
    const users = await ctx.api.request("DELETE", "/users");
    expect(users.status).toBe(405);
    expect(users.headers.get("allow")).toBe("GET");
  });

  it("answers 400 with line and column for malformed XML", async () => {
    const r = await ctx.api.put("/userstory/1", "<userStory>\n  <name>x</nam>\n</userStory>");
    expect(errorOf(r, 400)).toMatch(/line 2, column \d+/);
    const cut = await ctx.api.put("/userstory/1", "<userStory><name>x</name>");
    expect(errorOf(cut, 400)).toMatch(/line 1, column \d+/);
    const amp = await ctx.api.put("/userstory/1", "<userStory><name>a & b</name></userStory>");
    expect(errorOf(amp, 400)).toMatch(/Malformed XML/);
    const empty = await ctx.api.put("/userstory/1", "");
    expect(empty.status).toBe(400);
  });

  it("refuses DOCTYPE and entity declarations before any expansion", async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>' +
      "<userStory><name>&lol2;</name></userStory>";
    expect(errorOf(await ctx.api.put("/userstory/1", laughs), 400)).toMatch(/DOCTYPE/);
    const external =
      '<!DOCTYPE userStory [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><userStory><name>&xxe;</name></userStory>';
    expect(errorOf(await ctx.api.put("/userstory/1", external), 400)).toMatch(/DOCTYPE/);
    const undefinedEntity = "<userStory><name>&xxe;</name></userStory>";
    expect(errorOf(await ctx.api.put("/userstory/1", undefinedEntity), 400)).toMatch(
      /undefined entity/,
    );
    expect(ctx.server.store.story(1)?.name).not.toContain("lol");
  });

  it("refuses documents nested too deeply", async () => {
    const deep = `<userStory>${"<a>".repeat(100)}${"</a>".repeat(100)}<name>x</name></userStory>`;
    expect(errorOf(await ctx.api.put("/userstory/1", deep), 400)).toMatch(/deeper/);
  });

  it("answers 400 naming the element for a bad enum, date, number, status or reference", async () => {
    const story = (inner: string) =>
      ctx.api.put("/userstory/2", `<userStory><name>n</name>${inner}</userStory>`);
    expect(errorOf(await story("<color>PINK</color>"), 400)).toMatch(/<color>.*"PINK"/);
    expect(errorOf(await story("<acceptanceStatus>MAYBE</acceptanceStatus>"), 400)).toMatch(
      /<acceptanceStatus>/,
    );
    expect(errorOf(await story("<priority><id>7</id></priority>"), 400)).toMatch(/<priority>/);
    expect(errorOf(await story("<estimatedEffort>lots</estimatedEffort>"), 400)).toMatch(
      /<estimatedEffort>.*"lots"/,
    );
    expect(errorOf(await story("<estimatedEffort>1,5</estimatedEffort>"), 400)).toMatch(
      /<estimatedEffort>/,
    );
    expect(errorOf(await story("<owner><id>99</id></owner>"), 400)).toMatch(/<owner>: user 99/);
    expect(errorOf(await story("<iteration><id>99</id></iteration>"), 400)).toMatch(/<iteration>/);
    expect(errorOf(await story("<position>first</position>"), 400)).toMatch(/<position>/);
    const nameless = await ctx.api.put("/userstory/2", "<userStory><color>RED</color></userStory>");
    expect(errorOf(nameless, 400)).toMatch(/<name>/);
    const wrongRoot = await ctx.api.put("/userstory/2", "<task><name>x</name></task>");
    expect(errorOf(wrongRoot, 400)).toMatch(/<userStory>/);
    const task = (inner: string) => ctx.api.put("/task/1", `<task><name>n</name>${inner}</task>`);
    expect(errorOf(await task("<status><id>9</id></status>"), 400)).toMatch(/<status>: 9/);
    expect(errorOf(await task("<taskStatusId>5</taskStatusId>"), 400)).toMatch(/<taskStatusId>/);
    expect(errorOf(await task("<status>DONE</status>"), 400)).toMatch(/<status>.*"DONE"/);
    expect(errorOf(await task("<startedAt>yesterday</startedAt>"), 400)).toMatch(/<startedAt>/);
    expect(errorOf(await task("<completedAt>2026-02-30 10:00:00.000</completedAt>"), 400)).toMatch(
      /<completedAt>/,
    );
    const activity = await ctx.api.post(
      "/task/1/timesheet",
      "<activity><date>2026-13-01</date><timeSpent>1</timeSpent><user><id>1</id></user></activity>",
    );
    expect(errorOf(activity, 400)).toMatch(/<date>/);
    const comment = await ctx.api.post(
      "/task/1/comments",
      "<comment><date>5 May</date><body>x</body></comment>",
    );
    expect(errorOf(comment, 400)).toMatch(/<date>/);
  });

  it("answers 400 naming the parameter for a bad filter value", async () => {
    for (const q of [
      "status=DONE",
      "owner=99",
      "priority=URGENT",
      "iteration=42",
      "acceptanceStatus=X",
    ]) {
      const name = q.split("=")[0]!;
      expect(errorOf(await ctx.api.get(`/project/1/userstories?${q}`), 400)).toContain(name);
    }
  });

  it("answers 415 for an unsupported media type and accepts text/xml", async () => {
    const json = await ctx.api.request("PUT", "/userstory/1", {
      body: '{"name":"x"}',
      headers: { "content-type": "application/json" },
    });
    expect(errorOf(json, 415)).toMatch(/media type/);
    const text = await ctx.api.request("PUT", "/userstory/1", {
      body: "<userStory><name>via text/xml</name></userStory>",
      headers: { "content-type": "text/xml; charset=utf-8" },
    });
    expect(text.status).toBe(200);
  });

  it("answers 413 for a body over the configured limit", async () => {
    const big = `<userStory><name>${"x".repeat(4096)}</name></userStory>`;
    expect(errorOf(await ctx.api.put("/userstory/1", big), 413)).toMatch(/2048 bytes/);
  });
});
