import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { authedFetch, story } from "./jira-sandbox-helpers.js";

async function withSandbox<T>(
  options: Parameters<typeof startJiraSandbox>[0],
  body: (sandbox: JiraSandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await startJiraSandbox(options);
  try {
    return await body(sandbox);
  } finally {
    await sandbox.close();
  }
}

async function createIssue(sandbox: JiraSandbox): Promise<string> {
  const res = await authedFetch(sandbox, "/rest/api/3/issue", {
    method: "POST",
    body: JSON.stringify(story("x")),
  });
  return ((await res.json()) as { key: string }).key;
}

function comment(sandbox: JiraSandbox, key: string): Promise<Response> {
  const body = { body: { type: "doc", version: 1, content: [] } };
  return authedFetch(sandbox, `/rest/api/3/issue/${key}/comment`, {
    method: "POST",
    body: JSON.stringify(body),
  });
}

describe("the Jira sandbox: rate limits", () => {
  it("answers 429 with Retry-After and RateLimit-Reason when an endpoint's bucket is empty", async () => {
    await withSandbox({ rateLimits: "get=2/h" }, async (sandbox) => {
      expect((await authedFetch(sandbox, "/rest/api/3/myself")).status).toBe(200);
      expect((await authedFetch(sandbox, "/rest/api/3/myself")).status).toBe(200);
      const limited = await authedFetch(sandbox, "/rest/api/3/myself");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("ratelimit-reason")).toBe("jira-burst-based");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get("x-ratelimit-reset")).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/,
      );
      expect(await limited.json()).toEqual({ errorMessages: ["Rate limit exceeded."], errors: {} });
      // Another endpoint has its own bucket.
      expect((await authedFetch(sandbox, "/rest/api/3/priority")).status).toBe(200);
      expect(sandbox.stats().rateLimited).toBe(1);
    });
  });

  it("limits writes per issue with jira-per-issue-on-write, leaving other issues alone", async () => {
    await withSandbox({ rateLimits: "issue-writes=2/h" }, async (sandbox) => {
      const a = await createIssue(sandbox);
      const b = await createIssue(sandbox);
      expect((await comment(sandbox, a)).status).toBe(201);
      expect((await comment(sandbox, a)).status).toBe(201);
      const limited = await comment(sandbox, a);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("ratelimit-reason")).toBe("jira-per-issue-on-write");
      expect((await comment(sandbox, b)).status).toBe(201);
      expect((await authedFetch(sandbox, `/rest/api/3/issue/${a}`)).status).toBe(200);
    });
  });

  it("refuses everything once an hourly quota is spent", async () => {
    await withSandbox({ rateLimits: "global-quota=2/h" }, async (sandbox) => {
      await authedFetch(sandbox, "/rest/api/3/myself");
      await authedFetch(sandbox, "/rest/api/3/field");
      const limited = await authedFetch(sandbox, "/rest/api/3/priority");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("ratelimit-reason")).toBe("jira-quota-global-based");
    });
  });

  it("shortens Retry-After under a time scale", async () => {
    await withSandbox({ rateLimits: "get=1/h", timeScale: 3600 }, async (sandbox) => {
      await authedFetch(sandbox, "/rest/api/3/myself");
      const limited = await authedFetch(sandbox, "/rest/api/3/myself");
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(1);
    });
  });

  it("accepts the real limits by name and refuses a bad spec", async () => {
    await withSandbox({ rateLimits: "real" }, async (sandbox) => {
      const res = await authedFetch(sandbox, "/rest/api/3/myself");
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    });
    await expect(startJiraSandbox({ rateLimits: "fetch=1/s" })).rejects.toThrow(
      /name one of get, post/,
    );
  });
});

describe("the Jira sandbox: stats and reset", () => {
  let sandbox: JiraSandbox;
  beforeAll(async () => {
    sandbox = await startJiraSandbox();
  });
  afterAll(() => sandbox.close());

  it("counts requests by route, method and status, and writes, without auth", async () => {
    await authedFetch(sandbox, "/rest/api/3/myself");
    const key = await createIssue(sandbox);
    await authedFetch(sandbox, `/rest/api/3/issue/${key}`);
    await fetch(`${sandbox.url}/rest/api/3/myself`);
    const res = await fetch(`${sandbox.url}/_sandbox/stats`);
    const stats = (await res.json()) as ReturnType<JiraSandbox["stats"]>;
    expect(stats).toMatchObject({
      requests: 4,
      writes: 1,
      byMethod: { GET: 3, POST: 1 },
      byStatus: { "200": 2, "201": 1, "401": 1 },
    });
    expect(stats.byRoute["GET /rest/api/3/issue/:issueIdOrKey"]).toBe(1);
    const reset = await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
    expect(reset.status).toBe(204);
    expect(sandbox.stats().requests).toBe(0);
    expect((await authedFetch(sandbox, `/rest/api/3/issue/${key}`)).status).toBe(404);
  });
});

describe("the Jira sandbox: injected faults", () => {
  let sandbox: JiraSandbox;
  beforeAll(async () => {
    sandbox = await startJiraSandbox();
  });
  afterAll(() => sandbox.close());
  afterEach(() => {
    sandbox.setFaults("");
    sandbox.reset();
  });

  it.each(["500", "502", "503"])("answers an injected %s with Jira's error body", async (kind) => {
    sandbox.setFaults(`${kind}@GET /rest/api/3/myself`);
    const res = await authedFetch(sandbox, "/rest/api/3/myself");
    expect(res.status).toBe(Number(kind));
    expect(await res.json()).toMatchObject({ errorMessages: [expect.stringContaining(kind)] });
    expect((await authedFetch(sandbox, "/rest/api/3/priority")).status).toBe(200);
  });

  it("answers an injected 429 with Retry-After, and 429-bare without", async () => {
    sandbox.setFaults("429=7");
    const res = await authedFetch(sandbox, "/rest/api/3/myself");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    sandbox.setFaults("429-bare");
    const bare = await authedFetch(sandbox, "/rest/api/3/myself");
    expect(bare.status).toBe(429);
    expect(bare.headers.get("retry-after")).toBeNull();
  });

  it("answers an injected 403-secondary", async () => {
    sandbox.setFaults("403-secondary");
    expect((await authedFetch(sandbox, "/rest/api/3/myself")).status).toBe(403);
  });

  it("delays with latency and still answers", async () => {
    sandbox.setFaults("latency=20");
    expect((await authedFetch(sandbox, "/rest/api/3/myself")).status).toBe(200);
    expect(sandbox.stats().faults).toEqual({ latency: 1 });
  });

  it("drops the connection with reset", async () => {
    sandbox.setFaults("reset");
    await expect(authedFetch(sandbox, "/rest/api/3/myself")).rejects.toThrow();
  });

  it("cuts the body with truncate", async () => {
    sandbox.setFaults("truncate");
    const res = await authedFetch(sandbox, "/rest/api/3/field");
    await expect(res.text()).rejects.toThrow();
  });

  it("holds the request with timeout until the client gives up", async () => {
    sandbox.setFaults("timeout");
    await expect(
      authedFetch(sandbox, "/rest/api/3/myself", { signal: AbortSignal.timeout(200) }),
    ).rejects.toThrow();
    expect(sandbox.stats().faults).toEqual({ timeout: 1 });
  });
});
