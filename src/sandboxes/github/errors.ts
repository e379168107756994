/**
 * GitHub's error bodies: `{message, documentation_url, errors?, status}` (the `status` string was
 * added to REST error bodies in 2023). Handlers throw `GithubError`; the dispatcher renders it.
 */

/** One entry of a 422 `errors` array (codes: missing, missing_field, invalid, already_exists, unprocessable, custom). */
export interface GithubFieldError {
  readonly resource: string;
  readonly code:
    "missing" | "missing_field" | "invalid" | "already_exists" | "unprocessable" | "custom";
  readonly field?: string;
  readonly value?: unknown;
  readonly message?: string;
}

interface GithubErrorBody {
  readonly message: string;
  readonly documentation_url: string;
  readonly errors?: readonly GithubFieldError[];
  readonly status: string;
}

export const DOCS = "https://docs.github.com/rest";
export const RATE_LIMIT_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api";

/** An HTTP error answered in GitHub's JSON shape. */
export class GithubError extends Error {
  readonly status: number;
  readonly errors: readonly GithubFieldError[] | undefined;
  readonly documentationUrl: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    message: string,
    opts: {
      errors?: readonly GithubFieldError[];
      documentationUrl?: string;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = "GithubError";
    this.status = status;
    this.errors = opts.errors;
    this.documentationUrl = opts.documentationUrl ?? DOCS;
    this.headers = opts.headers ?? {};
  }

  /** The same error with extra headers (its own win). */
  withHeaders(headers: Record<string, string>): GithubError {
    const copy = new GithubError(this.status, this.message, {
      documentationUrl: this.documentationUrl,
      headers: { ...headers, ...this.headers },
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    });
    return copy;
  }

  body(): GithubErrorBody {
    return errorBody(this.status, this.message, this.documentationUrl, this.errors);
  }
}

export function errorBody(
  status: number,
  message: string,
  documentationUrl: string = DOCS,
  errors?: readonly GithubFieldError[],
): GithubErrorBody {
  return {
    message,
    ...(errors === undefined ? {} : { errors }),
    documentation_url: documentationUrl,
    status: String(status),
  };
}

export const notFound = (): GithubError => new GithubError(404, "Not Found");

/** 422 "Validation Failed" with one or more field errors. */
export function validationFailed(...errors: GithubFieldError[]): GithubError {
  return new GithubError(422, "Validation Failed", { errors });
}

/** 422 in the JSON-schema style GitHub uses for wrongly typed or missing request properties. */
export function invalidRequest(detail: string): GithubError {
  return new GithubError(422, `Invalid request.\n\n${detail}`);
}

export const badCredentials = (): GithubError => new GithubError(401, "Bad credentials");

export const requiresAuthentication = (): GithubError =>
  new GithubError(401, "Requires authentication");

export const notAccessibleByToken = (): GithubError =>
  new GithubError(403, "Resource not accessible by personal access token");
