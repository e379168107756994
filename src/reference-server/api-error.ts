/** An error the server answers with `<error><status/><message/></error>` and its status code. */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

export function notFound(kind: string, id: string | number): ApiError {
  return new ApiError(404, `${kind} ${id} not found`);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, message);
}
