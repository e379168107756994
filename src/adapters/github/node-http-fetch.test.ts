import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { Octokit } from "@octokit/rest";
import { afterEach, describe, expect, it } from "vitest";
import { nodeHttpFetch } from "./node-http-fetch.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const servers: Server[] = [];

/** A loopback server answering with `handler`; its base URL. */
async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handler(req, Buffer.concat(chunks).toString("utf8"), res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe("nodeHttpFetch", () => {
  it("sends the method, headers and body, and answers status, headers, URL and body", async () => {
    let seen: {
      method?: string | undefined;
      headers?: IncomingMessage["headers"];
      body?: string;
    } = {};
    const base = await serve((req, body, res) => {
      seen = { method: req.method, headers: req.headers, body };
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.writeHead(201, "Created", { "content-type": "application/json", "x-one": "1" });
      res.end(JSON.stringify({ number: 7 }));
    });
    const res = await nodeHttpFetch(`${base}/repos/o/r/issues`, {
      method: "POST",
      headers: { authorization: "token T", "content-type": "application/json" },
      body: JSON.stringify({ title: "Añadir" }),
    });
    expect(seen.method).toBe("POST");
    expect(seen.headers?.authorization).toBe("token T");
    expect(seen.headers?.["content-length"]).toBe(String(Buffer.byteLength('{"title":"Añadir"}')));
    expect(seen.body).toBe('{"title":"Añadir"}');
    expect([res.status, res.statusText, res.url]).toEqual([
      201,
      "Created",
      `${base}/repos/o/r/issues`,
    ]);
    expect(res.headers.get("x-one")).toBe("1");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.json()).toEqual({ number: 7 });
  });

  it("decompresses a gzip answer and gives 304 and 204 no body", async () => {
    let accepted: string | undefined;
    const base = await serve((req, _body, res) => {
      if (req.url === "/gz") {
        accepted = req.headers["accept-encoding"];
        res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
        res.end(gzipSync("x".repeat(10_000)));
      } else res.writeHead(req.url === "/304" ? 304 : 204).end();
    });
    expect(await (await nodeHttpFetch(`${base}/gz`)).text()).toBe("x".repeat(10_000));
    expect(accepted).toContain("gzip");
    const notModified = await nodeHttpFetch(`${base}/304`, { headers: { "if-none-match": '"e"' } });
    expect([notModified.status, notModified.body]).toEqual([304, null]);
    expect((await nodeHttpFetch(`${base}/204`, { method: "DELETE" })).body).toBeNull();
  });

  it("follows redirects as fetch does: a 303 as a GET, a credential kept to its origin", async () => {
    const other = await serve((req, body, res) => {
      res.end(JSON.stringify({ at: "other", auth: req.headers.authorization ?? null, body }));
    });
    const base = await serve((req, body, res) => {
      if (req.url === "/moved") res.writeHead(301, { location: "/here" }).end();
      else if (req.url === "/post") res.writeHead(303, { location: "/here" }).end();
      else if (req.url === "/away") res.writeHead(302, { location: `${other}/x` }).end();
      else res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body }));
    });
    const auth = { authorization: "token T" };
    const moved = await nodeHttpFetch(`${base}/moved`, { headers: auth });
    expect(moved.url).toBe(`${base}/here`);
    expect(await moved.json()).toEqual({ method: "GET", auth: "token T", body: "" });
    const posted = await nodeHttpFetch(`${base}/post`, {
      method: "POST",
      body: "{}",
      headers: auth,
    });
    expect(await posted.json()).toEqual({ method: "GET", auth: "token T", body: "" });
    const away = await nodeHttpFetch(`${base}/away`, { headers: auth });
    expect(await away.json()).toEqual({ at: "other", auth: null, body: "" });
    const manual = await nodeHttpFetch(`${base}/moved`, { redirect: "manual" });
    expect([manual.status, manual.headers.get("location")]).toEqual([301, "/here"]);
  });

  it("rejects a network failure as fetch does: a TypeError with the socket's code", async () => {
    const base = await serve((_req, _body, res) => res.end());
    const closed = servers.pop();
    await new Promise((resolve) => closed?.close(resolve));
    const error = (await nodeHttpFetch(`${base}/x`).catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe("fetch failed");
    expect((error.cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });

  it("rejects with the signal's reason when aborted, before or during the answer", async () => {
    const base = await serve((req, _body, res) => {
      if (req.url === "/slow-body") {
        res.writeHead(200);
        res.write("part");
      }
      // Otherwise never answers.
    });
    const before = new AbortController();
    before.abort();
    await expect(nodeHttpFetch(`${base}/x`, { signal: before.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(
      nodeHttpFetch(`${base}/hang`, { signal: AbortSignal.timeout(50) }),
    ).rejects.toMatchObject({ name: "TimeoutError" });
    const during = new AbortController();
    const res = await nodeHttpFetch(`${base}/slow-body`, { signal: during.signal });
    const text = res.text();
    during.abort();
    await expect(text).rejects.toMatchObject({ name: "AbortError" });
  });

  it("carries Octokit's requests and errors", async () => {
    const base = await serve((req, _body, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/repos/o/r/issues/1") res.end(JSON.stringify({ number: 1, title: "T" }));
      else res.writeHead(404).end(JSON.stringify({ message: "Not Found" }));
    });
    const octokit = new Octokit({ baseUrl: base, request: { fetch: nodeHttpFetch } });
    const issue = await octokit.rest.issues.get({ owner: "o", repo: "r", issue_number: 1 });
    expect([issue.status, issue.data.title, issue.url]).toEqual([
      200,
      "T",
      `${base}/repos/o/r/issues/1`,
    ]);
    const error = (await octokit.rest.issues
      .get({ owner: "o", repo: "r", issue_number: 2 })
      .catch((e: unknown) => e)) as { status: number; message: string };
    expect(error.status).toBe(404);
    expect(error.message).toContain("Not Found");
  });
});
