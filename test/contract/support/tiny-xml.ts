/**
 * A tiny XML client for the reference server's conformance tests: `fetch` plus a minimal parser
 * for the well-formed documents the server writes. Independent of both the server and the tinyPM
 * adapter on purpose.
 */

export interface XNode {
  readonly name: string;
  readonly children: XNode[];
  text: string;
}

const TOKEN = /<\?[^]*?\?>|<(\/?)([A-Za-z_][\w.:-]*)\s*(\/?)>|([^<]+)/gy;

function unescape(text: string): string {
  return text
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** Parses an attribute-free document such as the server writes. Throws on anything else. */
export function parseDoc(xml: string): XNode {
  const root: XNode = { name: "#root", children: [], text: "" };
  const stack: XNode[] = [root];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (TOKEN.lastIndex < xml.length && (m = TOKEN.exec(xml)) !== null) {
    const top = stack[stack.length - 1]!;
    const [whole, close, name, selfClose, text] = m;
    if (whole.startsWith("<?")) continue;
    if (text !== undefined) top.text += unescape(text);
    else if (close === "/") {
      if (top.name !== name) throw new Error(`mismatched </${name}> in <${top.name}>`);
      stack.pop();
    } else {
      const node: XNode = { name: name!, children: [], text: "" };
      top.children.push(node);
      if (selfClose !== "/") stack.push(node);
    }
  }
  if (stack.length !== 1 || TOKEN.lastIndex < xml.length) throw new Error(`unparsable: ${xml}`);
  const [doc] = root.children;
  if (!doc || root.children.length !== 1) throw new Error(`expected one root element: ${xml}`);
  return doc;
}

/** The node at a `/`-separated path of child names (first match at each step). */
export function at(node: XNode, path: string): XNode | undefined {
  let current: XNode | undefined = node;
  for (const name of path.split("/")) current = current?.children.find((c) => c.name === name);
  return current;
}

/** The text at a path, or undefined when the element is absent. */
export function textAt(node: XNode, path: string): string | undefined {
  return at(node, path)?.text;
}

/** The names of a node's children, in document order. */
export function childNames(node: XNode | undefined): string[] {
  return node?.children.map((c) => c.name) ?? [];
}

export function all(node: XNode | undefined, name: string): XNode[] {
  return node?.children.filter((c) => c.name === name) ?? [];
}

export interface XResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** The parsed body; throws when the body is empty or not XML. */
  readonly doc: XNode;
}

export interface XmlClient {
  request(
    method: string,
    path: string,
    opts?: { body?: string; headers?: Record<string, string>; token?: string | null },
  ): Promise<XResponse>;
  get(path: string): Promise<XResponse>;
  post(path: string, body: string): Promise<XResponse>;
  put(path: string, body: string): Promise<XResponse>;
  del(path: string): Promise<XResponse>;
}

/** A client for `baseUrl` (ending in `/api`) sending `X-tinyPM-token` (unless `token: null`). */
export function xmlClient(baseUrl: string, token: string): XmlClient {
  const request: XmlClient["request"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const t = opts.token === undefined ? token : opts.token;
    if (t !== null) headers["X-tinyPM-token"] = t;
    if (opts.body !== undefined && !("content-type" in headers)) {
      headers["content-type"] = "application/xml";
    }
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(opts.body !== undefined && { body: opts.body }),
    });
    const body = await res.text();
    let parsed: XNode | undefined;
    return {
      status: res.status,
      headers: res.headers,
      body,
      get doc() {
        parsed ??= parseDoc(body);
        return parsed;
      },
    };
  };
  return {
    request,
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, { body }),
    put: (path, body) => request("PUT", path, { body }),
    del: (path) => request("DELETE", path),
  };
}

/** Whether `names` only holds members of `order`, each once, in `order`'s relative order. */
export function followsOrder(names: readonly string[], order: readonly string[]): boolean {
  let last = -1;
  for (const n of names) {
    const i = order.indexOf(n);
    if (i <= last) return false;
    last = i;
  }
  return true;
}
