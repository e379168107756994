export type GqlErrorType =
  | "NOT_FOUND"
  | "UNPROCESSABLE"
  | "FORBIDDEN"
  | "RATE_LIMITED"
  | "MISSING_PAGINATION_BOUNDARIES"
  | "EXCESSIVE_PAGINATION"
  | "INTERNAL";

/** An error GitHub's GraphQL API answers with HTTP 200 and `errors[].type`. */
export class GqlError extends Error {
  readonly type: GqlErrorType;
  constructor(type: GqlErrorType, message: string) {
    super(message);
    this.type = type;
  }
}

export const notFoundNode = (id: string): GqlError =>
  new GqlError("NOT_FOUND", `Could not resolve to a node with the global id of '${id}'`);
