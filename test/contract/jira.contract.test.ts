import http from "node:http";
import type { AddressInfo } from "node:net";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { startJiraSandbox } from "../../src/sandboxes/jira/index.js";
import { defineTrackerContract } from "./tracker-contract.js";

/** A pass-through proxy that can answer GETs with a body of the wrong shape. */
async function startProxy(target: string) {
  let malformed = false;
  const server = http.createServer((req, res) => {
    if (malformed && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"id":1,"fields":"nope"}');
      return;
    }
    const upstream = http.request(
      `${target}${req.url ?? "/"}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setMalformed: (on: boolean) => {
      malformed = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

defineTrackerContract("jira", async () => {
  const sandbox = await startJiraSandbox();
  const proxy = await startProxy(sandbox.url);
  const tracker = createJiraTracker({
    baseUrl: proxy.url,
    email: sandbox.email,
    token: sandbox.token,
    projectKey: sandbox.projectKey,
    pageSize: 5,
  });
  return {
    tracker,
    draft: (n: number) => ({
      kind: "story" as const,
      title: `Story ${n}`,
      status: "To Do",
      assignees: [],
      labels: ["a", `n${n}`],
    }),
    taskDraft: (n: number, parentId: string) => ({
      kind: "task" as const,
      parentId,
      title: `Task ${n}`,
      status: "To Do",
      assignees: [],
      labels: [],
    }),
    missingId: "WID-99999",
    pageSize: 5,
    injectFault: (kind: "rate-limit" | "malformed") => {
      if (kind === "rate-limit") sandbox.setFaults("429=2");
      else proxy.setMalformed(true);
    },
    clearFaults: () => {
      sandbox.setFaults("");
      proxy.setMalformed(false);
    },
    close: async () => {
      await tracker.close();
      await proxy.close();
      await sandbox.close();
    },
  };
});
