import type { ServerResponse } from "node:http";

/**
 * Headers every answer of the service carries: no caching, no sniffing, no framing, no referrer
 * beyond the service. `same-origin`, not `no-referrer`: under `no-referrer` browsers send
 * `Origin: null` with the dashboard's own form posts, which the cross-site check must refuse.
 */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};

/** The dashboard's Content-Security-Policy: nothing from elsewhere, no inline script. */
export const DASHBOARD_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res
    .writeHead(status, {
      ...COMMON_HEADERS,
      "content-type": "application/json; charset=utf-8",
      ...headers,
    })
    .end(`${JSON.stringify(body)}\n`);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType = "text/plain; charset=utf-8",
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { ...COMMON_HEADERS, "content-type": contentType, ...headers }).end(text);
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendText(res, status, html, "text/html; charset=utf-8", {
    "content-security-policy": DASHBOARD_CSP,
    ...headers,
  });
}

/** 303 See Other: the answer to a form POST (post/redirect/get). */
export function redirect(
  res: ServerResponse,
  location: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(303, { ...COMMON_HEADERS, location, ...headers }).end();
}
