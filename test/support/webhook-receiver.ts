import { createServer, type IncomingHttpHeaders, type Server } from "node:http";

/** One webhook delivery as a receiver saw it. */
export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface WebhookReceiver {
  readonly url: string;
  /** Every delivery received so far, in order. */
  readonly got: ReceivedDelivery[];
  close(): Promise<void>;
}

/**
 * A loopback server that records webhook deliveries and answers each with the next status of
 * `answers` (200 once they run out).
 */
export async function startWebhookReceiver(
  answers: number[] = [],
  path = "/",
): Promise<WebhookReceiver> {
  const got: ReceivedDelivery[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    got,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
