import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { FaultInjector, FaultRule } from "./faults.js";
import type { StatsRecorder } from "./stats.js";

/** How a server writes an error body in its own format (XML for tinyPM, JSON for the sandboxes). */
export type ErrorWriter = (
  res: ServerResponse,
  status: number,
  message: string,
  headers?: Record<string, string>,
) => void;

/**
 * Applies the injected faults for one request. Returns true when the request was answered (or
 * dropped) by a fault and the server must not handle it; latency only delays.
 * `truncate` is returned as a flag for the server to apply to its real response body.
 */
export async function applyFaults(opts: {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  faults: FaultInjector;
  stats: StatsRecorder;
  writeError: ErrorWriter;
}): Promise<{ handled: boolean; truncate: boolean }> {
  const chosen = opts.faults.decide(opts.req.method ?? "GET", opts.path);
  let truncate = false;
  for (const rule of chosen) {
    opts.stats.fault(rule.kind);
    if (rule.kind === "latency") {
      await sleep(rule.value ?? 100);
      continue;
    }
    if (rule.kind === "truncate") {
      truncate = true;
      continue;
    }
    answerFault(rule, opts.res, opts.req, opts.writeError);
    return { handled: true, truncate: false };
  }
  return { handled: false, truncate };
}

function answerFault(
  rule: FaultRule,
  res: ServerResponse,
  req: IncomingMessage,
  writeError: ErrorWriter,
): void {
  switch (rule.kind) {
    case "500":
    case "502":
    case "503":
      writeError(res, Number(rule.kind), `Injected fault: HTTP ${rule.kind}`);
      return;
    case "429":
      writeError(res, 429, "Injected fault: rate limit exceeded", {
        "retry-after": String(rule.value ?? 1),
      });
      return;
    case "429-bare":
      writeError(res, 429, "Injected fault: rate limit exceeded");
      return;
    case "403-secondary":
      writeError(
        res,
        403,
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
        { "retry-after": String(rule.value ?? 1) },
      );
      return;
    case "reset":
      req.socket.destroy();
      return;
    case "timeout":
      // Hold the request without answering: the client's own timeout must fire. The socket is
      // destroyed when the server closes.
      req.socket.setTimeout(0);
      return;
    case "latency":
    case "truncate":
      return;
  }
}

/** Sends `body` cut in half, then destroys the connection (the `truncate` fault). */
export function sendTruncated(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  const bytes = Buffer.from(body, "utf8");
  res.writeHead(status, { ...headers, "content-length": String(bytes.length) });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => {
    res.destroy();
  });
}
