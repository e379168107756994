import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** Redirects followed before a request fails, as fetch does. */
const MAX_REDIRECTS = 20;

/**
 * The `fetch` Octokit is given: over `node:http`. Node's own `fetch` compiles its HTTP parser to
 * WebAssembly on a process's first request and keeps it — 14 MB of a run's memory, 2 MB with
 * `node:http`, which parses natively (docs/benchmarks.md). It does what Octokit asks of a fetch:
 * a string body, redirects followed (or not, as asked), an abort signal, and the answer's status,
 * headers, URL and body (decompressed, as a web stream). A network failure rejects as fetch's
 * does: a `TypeError` whose `cause` is the socket's error.
 */
export const nodeHttpFetch: typeof fetch = async (input, init) => {
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();
  let url = new URL(input instanceof Request ? input.url : String(input));
  let method = (init?.method ?? "GET").toUpperCase();
  let body = bodyText(init?.body);
  const headers = new Headers(init?.headers);
  if (!headers.has("accept-encoding")) headers.set("accept-encoding", "gzip, deflate, br");
  for (let redirects = 0; ; redirects++) {
    const res = await send(url, method, headers, body, signal);
    const location = res.headers.location;
    const status = res.statusCode ?? 0;
    if (!isRedirect(status) || location === undefined || init?.redirect === "manual")
      return response(res, url, method, signal);
    res.resume();
    if (init?.redirect === "error" || redirects >= MAX_REDIRECTS)
      throw new TypeError("fetch failed", {
        cause: new Error(`redirect to ${location} refused (${redirects + 1} redirects)`),
      });
    const next = new URL(location, url);
    // A credential goes to the origin it was given for, never to another one.
    if (next.origin !== url.origin) headers.delete("authorization");
    if (
      status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST"
    ) {
      method = "GET";
      body = undefined;
      headers.delete("content-type");
    }
    url = next;
  }
};

function bodyText(body: RequestInit["body"]): string | Buffer | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string" || Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new TypeError(`nodeHttpFetch: unsupported request body (${typeof body})`);
}

const isRedirect = (status: number): boolean => [301, 302, 303, 307, 308].includes(status);

function send(
  url: URL,
  method: string,
  headers: Headers,
  body: string | Buffer | undefined,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  const outgoing: Record<string, string> = Object.fromEntries(headers);
  if (body !== undefined) outgoing["content-length"] = String(Buffer.byteLength(body));
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: outgoing, signal }, resolve);
    req.on("error", (error) => {
      // Aborted: rejected with the signal's reason, as fetch does (`AbortError`, `TimeoutError`).
      reject(
        signal?.aborted === true
          ? (signal.reason as Error)
          : new TypeError("fetch failed", { cause: error }),
      );
    });
    req.end(body);
  });
}

function response(
  res: IncomingMessage,
  url: URL,
  method: string,
  signal: AbortSignal | undefined,
): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? "", raw[i + 1] ?? "");
  const empty = method === "HEAD" || status === 204 || status === 205 || status === 304;
  if (empty) res.resume();
  const decoded = empty ? undefined : decode(res, headers.get("content-encoding"));
  if (decoded !== undefined && signal !== undefined) {
    const abort = (): void => {
      decoded.destroy(signal.reason as Error);
    };
    signal.addEventListener("abort", abort, { once: true });
    decoded.once("close", () => {
      signal.removeEventListener("abort", abort);
    });
  }
  const answer = new Response(
    decoded === undefined ? null : (Readable.toWeb(decoded) as ReadableStream<Uint8Array>),
    { status, statusText: res.statusMessage ?? "", headers },
  );
  Object.defineProperty(answer, "url", { value: url.href });
  return answer;
}

/** The body as sent, or decompressed when the server compressed it. */
function decode(res: IncomingMessage, encoding: string | null): Readable {
  const coding = encoding?.trim().toLowerCase();
  const decoder: Transform | undefined =
    coding === "gzip" || coding === "x-gzip"
      ? createGunzip()
      : coding === "deflate"
        ? createInflate()
        : coding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return res;
  res.on("error", (error) => decoder.destroy(error));
  return res.pipe(decoder);
}
