import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { ConflictError } from "../../src/core/errors.js";
import type { WorkItem, WorkItemDraft } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { startJiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startGithubHarness } from "./github-setup.js";

// GitHub's PATCH and Jira's PUT take no If-Match: an update planned against `base` reads the issue
// right before writing, and a field being written that changed since is refused with nothing
// written. A field already holding the value being written is a retry after a lost answer.

interface Setup {
  readonly run: Tracker;
  readonly person: Tracker;
  writes(): number;
  /** The next answer to a write of the issue is lost after the write landed. */
  loseNextWriteAnswer(): void;
  /** Lost answers are over. */
  heal(): void;
  readonly closedStatus: string;
  close(): Promise<void>;
}

async function github(): Promise<Setup> {
  const h = await startGithubHarness();
  let lose = false;
  return {
    run: h.tracker,
    person: h.tracker2(),
    writes: () => h.sandbox.stats().writes,
    loseNextWriteAnswer: () => {
      lose = true;
      h.sandbox.setFaults("truncate@PATCH /repos/*/*/issues/*");
    },
    heal: () => {
      if (lose) h.sandbox.setFaults("");
    },
    closedStatus: "closed:not_planned",
    close: () => h.close(),
  };
}

/**
 * A forwarding proxy on loopback that, once armed, passes the next request matching `route` on
 * to the server and then cuts the connection instead of relaying the answer: the write landed,
 * its answer was lost (Jira answers an edit with an empty 204, which a cut body cannot spoil).
 */
async function startLossyProxy(target: string, route: RegExp) {
  const upstream = new URL(target);
  let armed = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const lose = armed && route.test(`${req.method ?? ""} ${req.url ?? ""}`);
      if (lose) armed = false;
      const out = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          if (lose) {
            answer.resume();
            answer.on("end", () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    arm: () => {
      armed = true;
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => {
          ok();
        });
      }),
  };
}

async function jira(): Promise<Setup> {
  const sandbox = await startJiraSandbox();
  const proxy = await startLossyProxy(sandbox.url, /^PUT \/rest\/api\/3\/issue\/[^/?]+(\?|$)/);
  const tracker = (baseUrl: string) =>
    createJiraTracker({
      baseUrl,
      email: sandbox.email,
      token: sandbox.token,
      projectKey: sandbox.projectKey,
    });
  const run = tracker(proxy.url);
  const person = tracker(sandbox.url);
  return {
    run,
    person,
    writes: () => sandbox.stats().writes,
    loseNextWriteAnswer: () => {
      proxy.arm();
    },
    heal: () => {
      // the proxy loses one answer only
    },
    closedStatus: "Done",
    close: async () => {
      await run.close();
      await person.close();
      await proxy.close();
      await sandbox.close();
    },
  };
}

const draft: WorkItemDraft = {
  kind: "story",
  title: "Planned title",
  description: "Planned text.",
  status: "To Do",
  assignees: [],
  labels: ["one"],
};

describe.each([
  ["github", github],
  ["jira", jira],
] as const)("%s update planned against a base", (name, start) => {
  let s: Setup;
  afterEach(async () => {
    await s.close();
  });

  const create = async (): Promise<WorkItem> =>
    s.run.create({ ...draft, status: name === "github" ? "open" : "To Do" });
  const ref = (item: WorkItem) => ({ kind: item.kind, id: item.id });

  it("refuses a field a person changed since the read, writing nothing", async () => {
    s = await start();
    const base = await create();
    await s.person.update(ref(base), { set: { description: "A person's text." } });
    const before = s.writes();
    const error = await s.run
      .update(ref(base), { set: { description: "The run's text.", title: "New" }, base })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({
      system: name,
      hint: "Run the sync again: it re-plans against the current content.",
      details: { id: base.id, fields: ["description"] },
    });
    expect((error as Error).message).toContain("nothing was written");
    expect(s.writes()).toBe(before);
    const now = await s.person.get(ref(base));
    expect(now).toMatchObject({ title: "Planned title", description: "A person's text." });
  });

  it("refuses a status a person changed since the read: no transition, no close", async () => {
    s = await start();
    const base = await create();
    const personStatus = name === "github" ? "closed:completed" : "In Progress";
    await s.person.update(ref(base), { set: { status: personStatus } });
    const before = s.writes();
    await expect(
      s.run.update(ref(base), { set: { status: s.closedStatus }, base }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(s.writes()).toBe(before);
    expect((await s.person.get(ref(base)))?.status).toBe(personStatus);
  });

  it("writes over a field a person did not touch, keeping the person's other edit", async () => {
    s = await start();
    const base = await create();
    await s.person.update(ref(base), { set: { title: "A person's title" } });
    const after = await s.run.update(ref(base), { set: { description: "The run's text." }, base });
    expect(after).toMatchObject({ title: "A person's title", description: "The run's text." });
  });

  it("is no conflict when retried after its answer was lost (the write had landed)", async () => {
    s = await start();
    const base = await create();
    const patch = { set: { description: "The run's text.", labels: ["one", "two"] }, base };
    s.loseNextWriteAnswer();
    const before = s.writes();
    await expect(s.run.update(ref(base), patch)).rejects.toThrow();
    s.heal();
    expect(s.writes()).toBe(before + 1);
    const landed = await s.person.get(ref(base));
    expect(landed).toMatchObject({ description: "The run's text.", labels: ["one", "two"] });
    const again = await s.run.update(ref(base), patch);
    expect(again).toMatchObject({ description: "The run's text.", labels: ["one", "two"] });
  });
});
