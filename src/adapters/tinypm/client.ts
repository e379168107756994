import type { Logger } from "../../core/logger.js";
import http from "node:http";
import https from "node:https";
import { got, type Got } from "got";
import type { z } from "zod";
import { PayloadInvalidError, SyncError, type RemoteContext } from "../../core/errors.js";
import { ungated, withBothSignals, type RequestGate } from "../../core/request-gate.js";
import { httpError, notTinypm, sanitized, toSyncError } from "./errors.js";
import { foreignAnswer } from "./foreign-answer.js";
import { buildXml, parseXml, snippetOf, type XmlLimits, type XmlValue } from "./wire.js";

/** A pino-compatible logger; only `debug` is used (one line per HTTP call). */
interface ClientOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly limits: XmlLimits;
  readonly logger?: Logger | undefined;
  readonly userAgent?: string | undefined;
  /** Every request goes through it (limits, retries, waits). @default ungated */
  readonly gate?: RequestGate | undefined;
}

interface RequestSpec {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path under the API root, e.g. `/userstory/7`. */
  readonly path: string;
  /** The operation as documented, e.g. `GET /userstory/{id}` (errors and logs). */
  readonly operation: string;
  readonly id?: string | undefined;
  readonly body?: { readonly root: string; readonly value: XmlValue } | undefined;
  readonly signal?: AbortSignal | undefined;
}

interface ClientResponse {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
}

/** A read-modify-write of one document: GET `path`, build the new document, PUT it to `path`. */
interface ReplaceSpec<T extends z.ZodType> {
  readonly path: string;
  /** The GET and the PUT as documented, e.g. `GET /userstory/{id}`, `PUT /userstory/{id}`. */
  readonly readOperation: string;
  readonly writeOperation: string;
  readonly id: string;
  /** The document's root element, e.g. `userStory`. */
  readonly root: string;
  readonly schema: T;
  /**
   * The document to PUT, built from the one just read; called with no await in between. Throwing
   * (a conflict, a bad value) sends nothing.
   */
  readonly build: (read: { node: XmlValue; data: z.infer<T> }) => XmlValue;
  readonly signal?: AbortSignal | undefined;
}

/** What a replace read and what it sent. */
interface Replaced<T extends z.ZodType> {
  readonly read: { node: XmlValue; data: z.infer<T> };
  readonly sent: XmlValue;
}

export interface TinypmClient {
  /** Sends a request; any non-2xx answer is thrown as a typed error. */
  send(spec: RequestSpec): Promise<ClientResponse>;
  /** GET and validate: `undefined` on 404 when `allowMissing`. */
  getXml<T extends z.ZodType>(
    spec: Omit<RequestSpec, "method" | "body">,
    schema: T,
  ): Promise<z.infer<T>>;
  /** Parses and validates a response body already received. */
  parse<T extends z.ZodType>(
    spec: Pick<RequestSpec, "operation" | "id">,
    body: string,
    schema: T,
  ): z.infer<T>;
  /** GET, parse and validate, keeping the raw element tree too (for read-modify-write). */
  getDoc<T extends z.ZodType>(
    spec: Omit<RequestSpec, "method" | "body">,
    schema: T,
  ): Promise<{ node: XmlValue; data: z.infer<T> }>;
  /**
   * GET then PUT of one document as ONE write of the request gate: the read is made once the
   * write's turn has come (limits, requests in flight, the shared budget), and the PUT follows it
   * at once, with nothing awaited in between but building the document. tinyPM takes no
   * If-Match; this keeps the time in which a person's save can be overwritten to the PUT's own
   * transit. A retry of the write (a timeout, a 5xx) reads again.
   */
  replace<T extends z.ZodType>(spec: ReplaceSpec<T>): Promise<Replaced<T>>;
  readonly baseUrl: string;
  close(): void;
}

const SYSTEM = "tinypm" as const;

/**
 * got spreads `cacheOptions` (four keys, all undefined) first into the native options of every
 * request, and V8 builds that large object several times slower after such a spread (measured:
 * about a fifth of the CPU per request). No HTTP cache is used, so an empty object is equivalent.
 */
function emptyCacheOptions(options: { cacheOptions: object }): void {
  options.cacheOptions = {};
}

/** What a request that got no status failed with: `ETIMEDOUT`, `ECONNREFUSED`… */
function networkCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : "error";
}

export function createTinypmClient(options: ClientOptions): TinypmClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const agentOptions = { keepAlive: true, maxSockets: options.concurrency };
  const agent = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const instance: Got = got.extend({
    agent,
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    decompress: false,
    timeout: { request: options.timeoutMs },
    responseType: "text",
    headers: {
      "x-tinypm-token": options.token,
      accept: "application/xml, text/xml",
      "user-agent": options.userAgent ?? "tinypm-sync",
    },
    hooks: { beforeRequest: [emptyCacheOptions] },
  });
  const gate = options.gate ?? ungated;

  async function sendOnce(spec: RequestSpec): Promise<ClientResponse> {
    const started = Date.now();
    const ctx: RemoteContext = { system: SYSTEM, operation: spec.operation, id: spec.id };
    const guard = { tooLarge: false };
    // One debug line per request (the logger is bound to the system: no `system` key here).
    const logHttp = (status: number | string): void => {
      options.logger?.debug(
        {
          method: spec.method,
          path: spec.path,
          status,
          ms: Date.now() - started,
          operation: spec.operation,
          item: spec.id,
        },
        "http",
      );
    };
    const promise = instance(`${baseUrl}${spec.path}`, {
      method: spec.method,
      ...(spec.body && {
        body: buildXml(spec.body.root, spec.body.value),
        headers: { "content-type": "application/xml; charset=UTF-8" },
      }),
      ...(spec.signal && { signal: spec.signal }),
    });
    void promise.on("downloadProgress", (p: { transferred: number }) => {
      if (p.transferred > options.limits.maxBytes && !guard.tooLarge) {
        guard.tooLarge = true;
        promise.cancel();
      }
    });
    try {
      const res = await promise;
      const status = res.statusCode;
      logHttp(status);
      const foreign = foreignAnswer(res.headers["content-type"], res.body);
      if (foreign !== undefined) throw notTinypm(ctx, baseUrl, status, foreign, res.body);
      if (status >= 200 && status < 300) {
        const location = res.headers.location;
        return { status, location, body: res.body };
      }
      throw httpError(ctx, status, res.body, res.headers["retry-after"], options.limits);
    } catch (error) {
      if (!(error instanceof SyncError)) logHttp(networkCode(error));
      if (guard.tooLarge) {
        throw new PayloadInvalidError(
          `tinyPM answered ${spec.operation} with more than ${options.limits.maxBytes} bytes; the response was refused.`,
          ctx,
          {
            hint: "Raise maxResponseBytes if this server really sends such documents.",
            cause: sanitized(error),
          },
        );
      }
      throw toSyncError(error, ctx, baseUrl);
    }
  }

  const client: TinypmClient = {
    baseUrl,
    send: (spec) =>
      gate.request({
        system: SYSTEM,
        kind: spec.method === "GET" ? "read" : "write",
        name: `${spec.operation}${spec.id === undefined ? "" : ` ${spec.id}`}`,
        operation: spec.operation,
        // A story is identified by its id; a POST creates one (a repeat would duplicate it).
        idempotent: spec.method !== "POST",
        send: (signal) =>
          withBothSignals(spec.signal, signal, (both) => sendOnce({ ...spec, signal: both })),
      }),
    async getXml(spec, schema) {
      const res = await client.send({ ...spec, method: "GET" });
      return client.parse(spec, res.body, schema);
    },
    parse(spec, body, schema) {
      return parseDoc(spec, body, schema).data;
    },
    async getDoc(spec, schema) {
      const res = await client.send({ ...spec, method: "GET" });
      return parseDoc(spec, res.body, schema);
    },
    replace: (spec) =>
      gate.request({
        system: SYSTEM,
        kind: "write",
        name: `${spec.writeOperation} ${spec.id}`,
        operation: spec.writeOperation,
        // A whole document to one id: sending it again (after reading again) is safe.
        idempotent: true,
        send: (gateSignal) =>
          withBothSignals(spec.signal, gateSignal, async (signal) => {
            const got = await sendOnce({
              method: "GET",
              path: spec.path,
              operation: spec.readOperation,
              id: spec.id,
              signal,
            });
            const read = parseDoc(
              { operation: spec.readOperation, id: spec.id },
              got.body,
              spec.schema,
            );
            const sent = spec.build(read);
            const put = await sendOnce({
              method: "PUT",
              path: spec.path,
              operation: spec.writeOperation,
              id: spec.id,
              body: { root: spec.root, value: sent },
              signal,
            });
            return { status: put.status, read, sent };
          }),
      }),
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };

  function parseDoc<T extends z.ZodType>(
    spec: Pick<RequestSpec, "operation" | "id">,
    body: string,
    schema: T,
  ): { node: XmlValue; data: z.infer<T> } {
    const ctx: RemoteContext = { system: SYSTEM, operation: spec.operation, id: spec.id };
    let root: XmlValue;
    try {
      root = parseXml(body, options.limits).root;
    } catch (error) {
      throw toSyncError(error, ctx);
    }
    const result = schema.safeParse(root);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue ? issue.path.join(" > ") || "(root)" : "(root)";
      throw new PayloadInvalidError(
        `tinyPM sent an unexpected document for ${spec.operation}${spec.id ? ` (id ${spec.id})` : ""}: ${where}: ${issue?.message ?? "invalid"} (${snippetOf(body)}).`,
        ctx,
        {
          hint: "Check that the base URL points at a tinyPM 2.x API; report the payload if it does.",
        },
      );
    }
    return { node: root, data: result.data };
  }
  return client;
}
