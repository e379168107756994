/** One request, and every page of a list, through the context's client; payloads checked by zod. */
import type { z } from "zod";
import { PayloadInvalidError } from "../../core/errors.js";
import type { GithubRequest, GithubResponse } from "./client.js";
import type { GithubContext } from "./context.js";
import { rawIssueSchema } from "./schema.js";

/** Validates a payload; a mismatch is a `PayloadInvalidError` naming the operation and the paths. */
export function parse<S extends z.ZodType>(
  schema: S,
  data: unknown,
  where: { operation: string; id?: string | undefined },
): z.infer<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const problems = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(" > ") || "(root)"}: ${i.message}`);
  throw new PayloadInvalidError(
    `GitHub ${where.operation} answered an unexpected payload: ${problems.join("; ")}`,
    { system: "github", operation: where.operation, id: where.id },
    { hint: "Check baseUrl points at a GitHub REST API (api.github.com or GHES /api/v3)." },
  );
}

/** The `rel="next"` URL of a `link` header, verbatim. */
export function nextLink(link: string | number | undefined): string | undefined {
  if (typeof link !== "string") return undefined;
  for (const part of link.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m?.[1] !== undefined) return m[1];
  }
  return undefined;
}

/** Must succeed (no conditional request): the response, never "not-modified". */
export async function fetchOne(ctx: GithubContext, req: GithubRequest): Promise<GithubResponse> {
  const res = await ctx.client.request(req);
  if (res === "not-modified") {
    throw new PayloadInvalidError(
      `GitHub ${req.operation} answered 304 to an unconditional request`,
      {
        system: "github",
        operation: req.operation,
      },
    );
  }
  return res;
}

/**
 * Every page of a list endpoint, following `link: rel="next"` exactly as given. The first page
 * may be conditional: then `"not-modified"` is yielded once instead.
 */
export async function* pages(
  ctx: GithubContext,
  first: GithubRequest,
): AsyncGenerator<{ items: unknown[]; response: GithubResponse } | "not-modified"> {
  let req: GithubRequest | undefined = first;
  while (req !== undefined) {
    const res = await ctx.client.request(req);
    if (res === "not-modified") {
      yield res;
      return;
    }
    if (!Array.isArray(res.data)) {
      parse(rawIssueSchema.array(), res.data, req);
      return;
    }
    yield { items: res.data as unknown[], response: res };
    const next = nextLink(res.headers.link);
    req =
      next === undefined
        ? undefined
        : { method: "GET", url: next, operation: first.operation, signal: first.signal };
  }
}
