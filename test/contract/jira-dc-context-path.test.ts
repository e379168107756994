/**
 * A Jira Data Center site under a context path (`https://jira.example.com/jira`): a loopback
 * proxy serves the DC sandbox under `/jira` only, and the adapter, given the base URL with the
 * path, reaches every endpoint under it on REST v2 (or Agile), never at the server's root.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

describe("Jira adapter on Data Center under a context path", () => {
  let sandbox: JiraSandbox;
  let proxy: Server;
  let base = "";
  const seen: string[] = [];
  beforeAll(async () => {
    sandbox = await startJiraSandbox({ deployment: "datacenter" });
    proxy = createServer((req, res) => {
      const path = req.url ?? "/";
      seen.push(`${req.method ?? "GET"} ${path}`);
      if (!path.startsWith("/jira/")) {
        res.writeHead(404).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            (e): e is [string, string] => typeof e[1] === "string" && e[0] !== "host",
          ),
        );
        const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
        void fetch(`${sandbox.url}${path.slice("/jira".length)}`, {
          method: req.method ?? "GET",
          headers,
          ...(body !== undefined && { body }),
        }).then(async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const address = proxy.address();
    base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/jira`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    await sandbox.close();
  });

  it("creates and reads a story, every request under /jira on REST v2", async () => {
    const tracker = createJiraTracker({
      baseUrl: `${base}/`,
      email: "",
      token: sandbox.token,
      projectKey: sandbox.projectKey,
      deployment: "datacenter",
    });
    try {
      const created = await tracker.create({
        kind: "story",
        title: "Behind a context path",
        status: "To Do",
        assignees: [],
        labels: [],
      });
      const read = await tracker.get({ kind: "story", id: created.id });
      expect(read?.title).toBe("Behind a context path");
    } finally {
      await tracker.close();
    }
    expect(seen.length).toBeGreaterThan(1);
    const outside = seen.filter((s) => !/^[A-Z]+ \/jira\/rest\/(api\/2|agile\/1\.0)\//.test(s));
    expect(outside).toEqual([]);
  });
});
