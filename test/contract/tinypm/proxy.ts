import http from "node:http";
import type { AddressInfo } from "node:net";

/** What the proxy answers instead of forwarding, for the next `times` requests. */
export interface ProxyOverride {
  readonly status?: number;
  readonly body: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  readonly times?: number;
}

/**
 * A tiny forwarding proxy in front of the reference server, on 127.0.0.1 port 0, that can
 * answer with a crafted body instead (malformed, hostile or huge XML), and records the request
 * URLs and headers it saw (to prove the token never travels in a URL).
 */
export interface TestProxy {
  readonly url: string;
  override(o: ProxyOverride): void;
  clear(): void;
  readonly seen: { method: string; url: string; body: string }[];
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<TestProxy> {
  const upstream = new URL(target);
  const queue: { o: ProxyOverride; left: number }[] = [];
  const seen: { method: string; url: string; body: string }[] = [];
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? "GET", url: req.url ?? "", body: body.toString("utf8") });
      const head = queue[0];
      if (head) {
        if (--head.left <= 0) queue.shift();
        res.writeHead(head.o.status ?? 200, {
          "content-type": "application/xml",
          ...head.o.headers,
        });
        res.end(head.o.body);
        return;
      }
      const path = `${upstream.pathname.replace(/\/$/, "")}${(req.url ?? "").replace(/^\/api/, "")}`;
      const fwd = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path,
          headers: req.headers,
          agent,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      fwd.on("error", () => res.destroy());
      fwd.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api`,
    seen,
    override: (o) => queue.push({ o, left: o.times ?? 1 }),
    clear: () => (queue.length = 0),
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
