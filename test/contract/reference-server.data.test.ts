import { request } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  generateDataset,
  parseGenerateSpec,
  startReferenceServer,
  type ReferenceServer,
} from "../../src/reference-server/index.js";
import { all, textAt, xmlClient } from "./support/tiny-xml.js";

const TODAY = new Date(2026, 0, 15, 12, 0, 0);
const servers: ReferenceServer[] = [];

async function start(options: Parameters<typeof startReferenceServer>[0]) {
  const server = await startReferenceServer({ today: () => TODAY, ...options });
  servers.push(server);
  return { server, api: xmlClient(server.url, server.token) };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("the generator", () => {
  it("is deterministic per seed, and differs between seeds", () => {
    const spec = parseGenerateSpec("medium");
    const a = generateDataset(spec, 42, TODAY);
    expect(generateDataset(spec, 42, TODAY)).toEqual(a);
    expect(generateDataset(spec, 43, TODAY)).not.toEqual(a);
  });

  it("is independent of today except for dates, which shift together", () => {
    const spec = parseGenerateSpec("small");
    const strip = (d: ReturnType<typeof generateDataset>) =>
      JSON.stringify(d).replace(/\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}\.\d{3})?/g, "D");
    const later = new Date(2026, 5, 3, 8, 0, 0);
    expect(strip(generateDataset(spec, 9, later))).toBe(strip(generateDataset(spec, 9, TODAY)));
    const i1 = generateDataset(spec, 9, TODAY).iterations.map((i) => i.startDate);
    expect(i1[2]).toBe("2026-01-08");
  });

  it("has the documented presets and custom sizes", () => {
    expect(parseGenerateSpec("empty")).toEqual({ stories: 0, tasks: 0, comments: 0 });
    const large = generateDataset(parseGenerateSpec("large"), 1, TODAY);
    expect(large.stories).toHaveLength(2000);
    expect(large.tasks).toHaveLength(8000);
    const custom = generateDataset(parseGenerateSpec("stories=7,tasks=2,comments=3"), 1, TODAY);
    expect(custom.stories).toHaveLength(7);
    expect(custom.tasks).toHaveLength(14);
    expect(custom.comments.filter((c) => c.storyId !== undefined)).toHaveLength(21);
    expect(() => parseGenerateSpec("huge")).toThrow(/empty, small, medium, large/);
    expect(() => parseGenerateSpec("stories=x")).toThrow(/stories=N,tasks=M,comments=K/);
  });

  it("makes an empty project a migration destination: users, statuses, iterations, no stories", () => {
    const d = generateDataset(parseGenerateSpec("empty"), 1, TODAY);
    expect(d.users.map((u) => u.login)).toEqual(["alice", "bob", "carol", "dave", "erin", "frank"]);
    expect(d.projects[0]).toMatchObject({ id: 1, code: "WID", name: "Widgets" });
    expect(d.iterations.length).toBeGreaterThanOrEqual(3);
    expect(d.stories).toHaveLength(0);
  });

  it("has realistic variety", () => {
    const d = generateDataset(parseGenerateSpec("medium"), 5, TODAY);
    const stories = d.stories;
    expect(new Set(stories.map((s) => s.priority))).toEqual(new Set([1, 2, 3, 4]));
    expect(new Set(stories.map((s) => s.color)).size).toBe(6);
    expect(new Set(stories.map((s) => s.acceptanceStatus)).size).toBe(3);
    expect(new Set(d.tasks.map((t) => t.statusId))).toEqual(new Set([1, 2, 3, 4]));
    expect(new Set(stories.map((s) => s.iterationId))).toEqual(new Set([undefined, 1, 2, 3, 4]));
    expect(stories.some((s) => (s.description?.length ?? 0) > 2000)).toBe(true);
    expect(stories.some((s) => s.description?.includes("\r\n") === true)).toBe(true);
    expect(stories.some((s) => /[^ -~]/.test(s.name))).toBe(true);
    expect(stories.some((s) => s.tags.length >= 2)).toBe(true);
    expect(d.users.some((u) => u.name === "Zoë Ångström")).toBe(true);
    expect(d.tasks.some((t) => t.assignedUserIds.length >= 2)).toBe(true);
    expect(new Set(d.activities.map((a) => a.userId)).size).toBeGreaterThan(2);
    expect(new Set(d.activities.map((a) => a.date)).size).toBeGreaterThan(2);
  });
});

describe("datasets", () => {
  it("loads a dataset file and serves it", async () => {
    const dataset = generateDataset(parseGenerateSpec("stories=2,tasks=1,comments=0"), 1, TODAY);
    dataset.stories[0]!.name = "From the file";
    const file = join(mkdtempSync(join(tmpdir(), "refsrv-")), "data.json");
    writeFileSync(file, JSON.stringify(dataset));
    const { api } = await start({ dataset: file });
    expect(textAt((await api.get("/userstory/1")).doc, "name")).toBe("From the file");
  });

  it("rejects an invalid dataset naming the problems", async () => {
    await expect(start({ dataset: { users: [{ id: "x" }] } })).rejects.toThrow(/users\.0\.id/);
    const dangling = { projects: [], stories: [{ id: 1, projectId: 3, position: 1, name: "s" }] };
    await expect(start({ dataset: dangling })).rejects.toThrow(/unknown project 3/);
    const good = generateDataset(parseGenerateSpec("stories=1,tasks=1,comments=0"), 1, TODAY);
    const badStatus = { ...good, tasks: [{ ...good.tasks[0]!, statusId: 5 }] };
    await expect(start({ dataset: badStatus })).rejects.toThrow(/status 5 is not a task status/);
  });
});

describe("stats and reset", () => {
  it("counts requests and writes, and reset restores the data and clears the stats", async () => {
    const { server, api } = await start({ generate: "small" });
    await api.get("/users");
    await api.del("/userstory/1");
    const stats = (await (await fetch(`${server.origin}/_sandbox/stats`)).json()) as {
      requests: number;
      writes: number;
      byRoute: Record<string, number>;
    };
    expect(stats.requests).toBe(2);
    expect(stats.writes).toBe(1);
    expect(stats.byRoute["DELETE /userstory/:id"]).toBe(1);
    expect((await fetch(`${server.origin}/_sandbox/reset`, { method: "POST" })).status).toBe(200);
    expect(server.stats().requests).toBe(0);
    expect((await api.get("/userstory/1")).status).toBe(200);
  });
});

describe("fault injection", () => {
  it("answers 500, 502 and 503 as XML errors, per route", async () => {
    const { server, api } = await start({ faults: "503@GET /users" });
    const r = await api.get("/users");
    expect(r.status).toBe(503);
    expect(r.doc.name).toBe("error");
    expect((await api.get("/projects")).status).toBe(200);
    server.setFaults("500@/tinypm/api/project/*");
    expect((await api.get("/project/1")).status).toBe(500);
    server.setFaults("502");
    expect((await api.get("/projects")).status).toBe(502);
    expect(server.stats().faults).toMatchObject({ "503": 1, "500": 1, "502": 1 });
  });

  it("answers 429 with Retry-After", async () => {
    const { api } = await start({ faults: "429=7" });
    const r = await api.get("/users");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("7");
  });

  it("delays with latency and still answers", async () => {
    const { server, api } = await start({ faults: "latency=30" });
    expect((await api.get("/users")).status).toBe(200);
    expect(server.stats().faults.latency).toBe(1);
  });

  it("resets the connection", async () => {
    const { api } = await start({ faults: "reset@GET /userstory/*" });
    await expect(api.get("/userstory/1")).rejects.toThrow();
  });

  it("truncates a body and cuts the connection", async () => {
    const { server } = await start({ faults: "truncate@GET /project/*" });
    const got = await new Promise<{ declared: number; received: number }>((resolve) => {
      const req = request(`${server.url}/project/1?token=${server.token}`, (res) => {
        let received = 0;
        res.on("data", (c: Buffer) => (received += c.length));
        res.on("error", () => undefined);
        res.on("close", () => {
          resolve({ declared: Number(res.headers["content-length"]), received });
        });
      });
      req.on("error", () => undefined);
      req.end();
    });
    expect(got.received).toBeLessThan(got.declared);
  });

  it("is deterministic per seed at a rate", async () => {
    const pattern = async (seed: number) => {
      const { api } = await start({ faults: "500:0.5", seed, generate: "empty" });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await api.get("/users")).status);
      return statuses;
    };
    const a = await pattern(11);
    expect(await pattern(11)).toEqual(a);
    expect(a).toContain(500);
    expect(a).toContain(200);
  });

  it("leaves the story listing intact when no rule matches", async () => {
    const { api } = await start({ faults: "500@DELETE /**", generate: "small" });
    expect(all((await api.get("/project/1/userstories")).doc, "userStory")).toHaveLength(5);
  });
});
