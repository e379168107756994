/**
 * Puts the Data Center dialect (dc-dialect.ts) under jira.js: axios interceptors on the Version3
 * and Agile clients rewrite `/rest/api/3` to `/rest/api/2` (after any context path in the base
 * URL), `/search/jql` to `/search`, and translate bodies both ways. An answer carrying
 * `X-Seraph-LoginReason: AUTHENTICATED_FAILED` (a refused PAT served as anonymous, 200 and empty)
 * is turned into the 401 it stands for, so a dead token never reads as "no issues".
 */
import {
  changelogAnswer,
  changelogRequest,
  createMetaAnswer,
  inbound,
  outbound,
  searchAnswer,
  searchAsked,
  searchRequest,
  type SearchAsked,
  type WikiSources,
} from "./dc-dialect.js";
import { dcRateLimitHoldMs } from "./dc-rate-limit.js";
import { axiosInstance } from "./axios-instance.js";

interface AxiosConfig {
  url?: string;
  method?: string;
  data?: unknown;
  params?: Record<string, unknown>;
  /** A Cloud `/search/jql` asked of DC's `/search` (dc-dialect.ts). */
  dcSearch?: SearchAsked;
  /** A Cloud changelog page asked of DC's `expand=changelog` (dc-dialect.ts). */
  dcChangelog?: { startAt: number; maxResults: number };
}

interface AxiosResponse {
  status: number;
  data: unknown;
  headers: Record<string, unknown>;
  config: AxiosConfig;
}

interface AxiosLike {
  interceptors: {
    request: { use(onOk: (c: AxiosConfig) => AxiosConfig): unknown };
    response: { use(onOk: (r: AxiosResponse) => unknown): unknown };
  };
}

const FAILED_LOGIN = new Set(["AUTHENTICATED_FAILED", "AUTHENTICATION_DENIED"]);

/** An error shaped like axios's, so errors.ts maps it as the 401 it is. */
class RefusedTokenError extends Error {
  override readonly name = "RefusedTokenError";
  readonly response: { status: number; data: unknown; headers: Record<string, unknown> };
  constructor(reason: string, headers: Record<string, unknown>) {
    super(`Jira Data Center refused the personal access token (X-Seraph-LoginReason: ${reason})`);
    this.response = {
      status: 401,
      data: { errorMessages: [this.message], errors: {} },
      headers,
    };
  }
}

/**
 * Installs the DC dialect on a jira.js client (Version3Client or AgileClient). `onHold` hears,
 * after each answer that carries DC's rate-limit headers, how long later requests should wait
 * (dc-rate-limit.ts).
 */
export function installDcDialect(
  client: object,
  sources: WikiSources,
  onHold: (ms: number) => void = () => undefined,
): void {
  const axios = axiosInstance(client) as AxiosLike | undefined;
  if (axios === undefined) throw new Error("jira.js no longer exposes its axios instance");
  axios.interceptors.request.use((config) => {
    const url = config.url ?? "";
    const method = (config.method ?? "get").toUpperCase();
    if (url.startsWith("/rest/api/3/search/jql")) {
      const asked = method === "GET" ? config.params : config.data;
      config.url = "/rest/api/2/search";
      config.data = method === "GET" ? undefined : searchRequest(asked);
      if (method === "GET") config.params = searchRequest(asked);
      config.dcSearch = searchAsked(asked);
      return config;
    }
    const changelog = method === "GET" ? changelogRequest(url) : undefined;
    if (changelog !== undefined) {
      const page = config.params ?? {};
      config.dcChangelog = {
        startAt: Number(page.startAt ?? 0) || 0,
        maxResults: Number(page.maxResults ?? 100) || 100,
      };
      config.url = changelog.url;
      config.params = changelog.params;
      return config;
    }
    if (url.startsWith("/rest/api/3/")) config.url = `/rest/api/2/${url.slice(12)}`;
    // DC's user search needs a `username`; `.` matches everyone.
    if (config.url?.startsWith("/rest/api/2/user/assignable/search") === true)
      config.params = { ...config.params, username: config.params?.username ?? "." };
    // An entity property's value (`/properties/{key}`) is the tool's own JSON, sent as it is.
    if (config.data !== undefined && !(config.url ?? "").includes("/properties/"))
      config.data = outbound(config.data, sources);
    return config;
  });
  axios.interceptors.response.use((response) => {
    const hold = dcRateLimitHoldMs(response.headers);
    if (hold !== undefined) onHold(hold);
    const reason = response.headers["x-seraph-loginreason"];
    if (typeof reason === "string" && FAILED_LOGIN.has(reason))
      throw new RefusedTokenError(reason, response.headers);
    const url = response.config.url ?? "";
    const opaque = url.includes("/properties/");
    const data = opaque ? response.data : createMetaAnswer(url, inbound(response.data, sources));
    const page = response.config.dcChangelog;
    response.data =
      response.config.dcSearch !== undefined
        ? searchAnswer(data, response.config.dcSearch)
        : page !== undefined
          ? changelogAnswer(data, page.startAt, page.maxResults)
          : data;
    return response;
  });
}
