import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the proxy passed on, with the status its upstream answered. */
export interface ProxiedRequest {
  readonly method: string;
  /** The path and query, as sent. */
  readonly path: string;
  readonly status: number;
}

/** A loopback HTTP proxy in front of a sandbox (see `startPersonProxy`). */
export interface PersonProxy {
  readonly url: string;
  /** Every request passed on, in the order their answers came back. */
  readonly requests: readonly ProxiedRequest[];
  close(): Promise<void>;
}

const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);

function passable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP.has(name)) out[name] = value;
  return out;
}

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A proxy on 127.0.0.1 (a free port) that passes every request on to `upstream` and, once the
 * upstream answered, awaits `afterAnswer` before handing that answer back: a person's save made
 * there lands between the client's request and whatever the client sends next, as it does on a
 * real service between a write and its read-back. `beforeForward` is awaited before a request
 * goes on: a save made there lands right before it.
 */
export async function startPersonProxy(o: {
  readonly upstream: string;
  /** Awaited before a request is passed on (a person's save lands right before it). */
  readonly beforeForward?: (r: Omit<ProxiedRequest, "status">) => Promise<void> | void;
  readonly afterAnswer?: (r: ProxiedRequest) => Promise<void> | void;
}): Promise<PersonProxy> {
  const upstream = new URL(o.upstream);
  const requests: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      await o.beforeForward?.({ method: req.method ?? "GET", path: req.url ?? "/" });
      const answer = await new Promise<IncomingMessage>((resolve, reject) => {
        const out = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: { ...passable(req.headers), "content-length": String(body.length) },
          },
          resolve,
        );
        out.on("error", reject);
        out.end(body);
      });
      const payload = await bodyOf(answer);
      const seen = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        status: answer.statusCode ?? 0,
      };
      requests.push(seen);
      await o.afterAnswer?.(seen);
      res.writeHead(answer.statusCode ?? 502, {
        ...passable(answer.headers),
        "content-length": String(payload.length),
      });
      res.end(payload);
    })().catch((error: unknown) => {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}${upstream.pathname.replace(/\/$/, "")}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
