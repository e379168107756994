import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./github-sandbox-helpers.js";

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.sandbox.close();
});

async function harness(...args: Parameters<typeof startHarness>): Promise<Harness> {
  const h = await startHarness(...args);
  open.push(h);
  return h;
}

const createIssue = (h: Harness, title = "t"): Promise<Response> =>
  h.call("POST", "/repos/acme/widgets/issues", { body: { title } });

interface ErrorBody {
  message: string;
  documentation_url: string;
  status: string;
}

describe("secondary (content creation) limits", () => {
  it("refuses the 81st creation within a minute with 403, GitHub's message and retry-after", async () => {
    const h = await harness({ rateLimits: "real" });
    for (let i = 1; i <= 80; i++) expect((await createIssue(h, `#${i}`)).status).toBe(201);
    const res = await createIssue(h, "#81");
    expect(res.status).toBe(403);
    const body = (await res.json()) as ErrorBody;
    expect(body.message).toBe(
      "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.",
    );
    expect(body.message).toMatch(/\bsecondary rate\b/i); // what @octokit/plugin-throttling looks for
    expect(body.documentation_url).toMatch(/rate-limits-for-the-rest-api/);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Reads are not content creation, and the refused creation created nothing.
    const list = await h.call("GET", "/repos/acme/widgets/issues?per_page=100");
    expect(list.status).toBe(200);
    expect(((await list.json()) as unknown[]).length).toBe(80);
    expect(h.sandbox.stats().rateLimited).toBe(1);
  });

  it("counts comments, labels added to issues and sub-issues as creations", async () => {
    const h = await harness({ rateLimits: "creates=3/min" });
    expect((await createIssue(h)).status).toBe(201);
    const comment = await h.call("POST", "/repos/acme/widgets/issues/1/comments", {
      body: { body: "c" },
    });
    expect(comment.status).toBe(201);
    const labels = await h.call("POST", "/repos/acme/widgets/issues/1/labels", {
      body: { labels: ["x"] },
    });
    expect(labels.status).toBe(200);
    const edit = await h.call("PATCH", "/repos/acme/widgets/issues/1", { body: { title: "edit" } });
    expect(edit.status).toBe(200);
    expect(
      (await h.call("POST", "/repos/acme/widgets/issues/1/comments", { body: { body: "d" } }))
        .status,
    ).toBe(403);
  });

  it("frees the window as (scaled) time passes", async () => {
    // 1 sandbox minute = 2 real seconds. Real time is moved by hand: a loaded machine may take
    // longer than 2 s between two requests, which would free the window before it is checked.
    let real = Date.UTC(2026, 10, 1);
    const h = await harness({ rateLimits: "creates=1/min", timeScale: 30, now: () => real });
    expect((await createIssue(h)).status).toBe(201);
    const refused = await createIssue(h);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("retry-after")).toBe("2");
    real += 1_999;
    expect((await createIssue(h)).status).toBe(403);
    real += 1;
    expect((await createIssue(h)).status).toBe(201);
  });

  it("applies the hourly window too, with retry-after scaled to real seconds", async () => {
    const h = await harness({ rateLimits: "creates=100/min,creates=5/h", timeScale: 60 });
    for (let i = 0; i < 5; i++) expect((await createIssue(h)).status).toBe(201);
    const res = await createIssue(h);
    expect(res.status).toBe(403);
    // An hour of sandbox time is a minute of real time.
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });

  it("can answer 429 and leave out retry-after", async () => {
    const h = await harness({ rateLimits: "creates=1/min,secondary-status=429,retry-after=off" });
    await createIssue(h);
    const res = await createIssue(h);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(((await res.json()) as ErrorBody).message).toMatch(/secondary rate limit/);
  });
});

describe("primary limit", () => {
  it("refuses past the core quota with remaining 0, a future reset and GitHub's message", async () => {
    const h = await harness({ rateLimits: "core=3/h" });
    for (let i = 0; i < 3; i++)
      expect((await h.call("GET", "/repos/acme/widgets")).status).toBe(200);
    const res = await h.call("GET", "/repos/acme/widgets");
    expect(res.status).toBe(403);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("x-ratelimit-used")).toBe("3");
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(((await res.json()) as ErrorBody).message).toBe(
      "API rate limit exceeded for user ID 5000001.",
    );
    // /rate_limit costs nothing and still answers.
    const rate = await h.call("GET", "/rate_limit");
    expect(rate.status).toBe(200);
    const overview = (await rate.json()) as {
      resources: { core: { remaining: number; used: number } };
    };
    expect(overview.resources.core).toMatchObject({ remaining: 0, used: 3 });
  });

  it("does not charge 304 answers", async () => {
    const h = await harness({ rateLimits: "core=2/h" });
    const first = await h.call("GET", "/repos/acme/widgets/issues");
    const etag = first.headers.get("etag") ?? "";
    for (let i = 0; i < 5; i++) {
      const res = await h.call("GET", "/repos/acme/widgets/issues", {
        headers: { "if-none-match": etag },
      });
      expect(res.status).toBe(304);
      expect(res.headers.get("x-ratelimit-used")).toBe("1");
    }
    expect((await h.call("GET", "/repos/acme/widgets")).status).toBe(200);
    expect((await h.call("GET", "/repos/acme/widgets")).status).toBe(403);
  });

  it("can answer 429 instead of 403", async () => {
    const h = await harness({ rateLimits: "core=1/h,primary-status=429" });
    await h.call("GET", "/user");
    expect((await h.call("GET", "/user")).status).toBe(429);
  });

  it("never refuses with rate limits off, but still reports usage", async () => {
    const h = await harness({ rateLimits: "off" });
    for (let i = 0; i < 85; i++) expect((await createIssue(h)).status).toBe(201);
    const res = await h.call("GET", "/user");
    expect(res.headers.get("x-ratelimit-used")).toBe("86");
    // A quota no client ever sees run low, so none starts waiting for a reset.
    expect(res.headers.get("x-ratelimit-limit")).toBe("1000000000");
  });
});

describe("faults", () => {
  const kinds: [string, number, string | null, RegExp][] = [
    ["500", 500, null, /Injected fault: HTTP 500/],
    ["502", 502, null, /HTTP 502/],
    ["503", 503, null, /HTTP 503/],
    ["429=7", 429, "7", /rate limit/],
    ["429-bare", 429, null, /rate limit/],
    ["403-secondary=9", 403, "9", /secondary rate limit/],
  ];
  it.each(kinds)(
    "answers the %s fault in GitHub's error shape",
    async (spec, status, retryAfter, message) => {
      const h = await harness({ faults: `${spec}@GET /user` });
      const res = await h.call("GET", "/user");
      expect(res.status).toBe(status);
      expect(res.headers.get("retry-after")).toBe(retryAfter);
      const body = (await res.json()) as ErrorBody;
      expect(body.message).toMatch(message);
      expect(body.status).toBe(String(status));
      expect(typeof body.documentation_url).toBe("string");
      expect((await h.call("GET", "/repos/acme/widgets")).status).toBe(200);
      expect(h.sandbox.stats().faults[spec.split("=")[0] ?? ""]).toBe(1);
    },
  );

  it("resets the connection", async () => {
    const h = await harness({ faults: "reset@GET /user" });
    await expect(h.call("GET", "/user")).rejects.toThrow();
    expect(h.sandbox.stats().faults.reset).toBe(1);
  });

  it("holds the request until the client gives up (timeout)", async () => {
    const h = await harness({ faults: "timeout@GET /user" });
    const res = fetch(`${h.sandbox.url}/user`, {
      headers: { authorization: `token ${h.sandbox.token}`, "user-agent": "t" },
      signal: AbortSignal.timeout(200),
    });
    await expect(res).rejects.toThrow();
  });

  it("cuts a body in half (truncate)", async () => {
    const h = await harness({ faults: "truncate@GET /repos/*/*" });
    await expect(h.call("GET", "/repos/acme/widgets").then((r) => r.json())).rejects.toThrow();
    expect(h.sandbox.stats().faults.truncate).toBe(1);
  });

  it("delays with latency and can be changed at run time", async () => {
    const h = await harness({ faults: "latency=5" });
    expect((await h.call("GET", "/user")).status).toBe(200);
    expect(h.sandbox.stats().faults.latency).toBe(1);
    h.sandbox.setFaults("503@POST /repos/**");
    expect((await h.call("GET", "/user")).status).toBe(200);
    expect((await createIssue(h)).status).toBe(503);
    h.sandbox.setFaults("");
    expect((await createIssue(h)).status).toBe(201);
  });
});
