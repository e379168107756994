import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface RunningServer {
  /** `http://host:port` (no trailing slash). */
  readonly origin: string;
  readonly port: number;
  /** Stops accepting, destroys open connections (including held ones), resolves when closed. */
  close(): Promise<void>;
}

/** Starts a node:http server with keep-alive, tracking sockets so that `close` is prompt. */
export async function startHttpServer(opts: {
  host?: string | undefined;
  port?: number | undefined;
  handler: Handler;
  onError?: (error: unknown, res: ServerResponse) => void;
  /**
   * The server's clock (epoch ms) for every answer's `Date` header, as a real service's answers
   * carry its own clock's time. @default the host's (node:http's own header)
   */
  now?: (() => number) | undefined;
}): Promise<RunningServer> {
  const sockets = new Set<Socket>();
  const now = opts.now;
  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    if (now !== undefined) res.setHeader("date", new Date(now()).toUTCString());
    Promise.resolve(opts.handler(req, res)).catch((error: unknown) => {
      if (opts.onError) opts.onError(error, res);
      else if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    origin: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** Thrown by `readBody` when a request body is larger than allowed (answer 413). */
export class BodyTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`request body is larger than ${limit} bytes`);
    this.limit = limit;
  }
}

/** Reads a request body up to `limit` bytes, as a Buffer; rejects with BodyTooLargeError past it. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new BodyTooLargeError(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new BodyTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
