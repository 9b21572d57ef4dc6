/**
 * One error model. Domain code throws ServiceError with a closed code; the HTTP layer turns it into
 * RFC 7807 application/problem+json, and the CLI prints its detail. Internal causes go only to logs.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: { status: 400, title: "Request validation failed" },
  MALFORMED_JSON: { status: 400, title: "Malformed JSON body" },
  INVALID_INPUT: { status: 400, title: "Invalid input" },
  UNAUTHENTICATED: { status: 401, title: "Authentication required" },
  FORBIDDEN: { status: 403, title: "Not allowed by policy" },
  NO_USABLE_TENANT: { status: 403, title: "Credential carries no usable tenant" },
  NOT_FOUND: { status: 404, title: "Resource not found" },
  ROUTE_NOT_FOUND: { status: 404, title: "No such route" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed on this route" },
  NOT_ACCEPTABLE: { status: 406, title: "No acceptable representation" },
  CONFLICT: { status: 409, title: "Conflict with the current state" },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: "Idempotency key reused with a different request" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Request body too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  QUOTA_EXCEEDED: { status: 429, title: "Not enough monthly screening quota left" },
  RATE_LIMITED: { status: 429, title: "Screening rate limit reached" },
  NOT_READY: { status: 503, title: "Service not ready" },
  INTERNAL: { status: 500, title: "Internal error" },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface FieldIssue {
  /** Dotted path of the offending field ("" for the body itself, "[3].fullName" for an array row). */
  field: string;
  message: string;
}

export class ServiceError extends Error {
  override name = "ServiceError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly fieldIssues: FieldIssue[] | undefined;
  /** Extra public members for the problem body (e.g. used/limit on 429). */
  readonly extensions: Record<string, unknown> | undefined;
  /** Response headers the error requires (e.g. Allow on 405). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: {
      fieldIssues?: FieldIssue[];
      extensions?: Record<string, unknown>;
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.fieldIssues = options.fieldIssues;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }
}

export function problemSlug(code: ErrorCode): string {
  return code.toLowerCase().replaceAll("_", "-");
}

export function codeFromSlug(slug: string): ErrorCode | undefined {
  const code = slug.toUpperCase().replaceAll("-", "_");
  return code in ERROR_CATALOGUE ? (code as ErrorCode) : undefined;
}

export const notFound = (what: string): ServiceError => new ServiceError("NOT_FOUND", `${what} not found`);
export const invalidInput = (detail: string, fieldIssues?: FieldIssue[]): ServiceError =>
  new ServiceError("INVALID_INPUT", detail, fieldIssues ? { fieldIssues } : {});
