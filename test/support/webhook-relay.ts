import { createServer, type Server } from "node:http";

/**
 * A loopback relay for webhook deliveries, listening on port 0: a sandbox is told its URL before
 * the receiver (a `serve` on port 0) is up and its port known. Until `forwardTo` names the
 * receiver, and when the receiver does not answer, a delivery gets 502, as a delivery to a
 * closed port fails, and the sandbox retries it. Otherwise the receiver's status and body go back.
 * No port is chosen ahead and bound later, so none can be taken in between.
 */
export interface WebhookRelay {
  /** The relay's base URL (`http://127.0.0.1:PORT`); paths are passed on as they come. */
  readonly url: string;
  /** Where deliveries go from now on: the receiver's base URL. */
  forwardTo(base: string): void;
  close(): Promise<void>;
}

/** Headers the relay sets itself or that describe the hop, not the delivery. */
const HOP_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding"]);

export async function startWebhookRelay(): Promise<WebhookRelay> {
  let target: string | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (target === undefined) {
        res.writeHead(502).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || HOP_HEADERS.has(name)) continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      fetch(`${target}${req.url ?? "/"}`, {
        method: req.method ?? "POST",
        headers,
        ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
      })
        .then(async (answer) => {
          const body = await answer.text();
          const type = answer.headers.get("content-type");
          res.writeHead(answer.status, type === null ? {} : { "content-type": type }).end(body);
        })
        .catch(() => {
          res.writeHead(502).end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    forwardTo: (base) => {
      target = base.replace(/\/$/, "");
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
