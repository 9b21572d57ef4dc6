import { ERROR_CATALOGUE, type ErrorCode, type FieldIssue, problemSlug, type ServiceError } from "@/errors";

/** RFC 7807 problem body with the appliance's extensions (code, correlationId, errors). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  correlationId: string;
  errors?: FieldIssue[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export function problemType(code: ErrorCode): string {
  return `/problems/${problemSlug(code)}`;
}

export function problemBody(error: ServiceError, instance: string, correlationId: string): ProblemBody {
  const body: ProblemBody = {
    ...(error.extensions ?? {}),
    type: problemType(error.code),
    title: ERROR_CATALOGUE[error.code].title,
    status: error.status,
    detail: error.message,
    instance,
    code: error.code,
    correlationId,
  };
  if (error.fieldIssues && error.fieldIssues.length > 0) body.errors = error.fieldIssues;
  return body;
}

export function problemResponse(error: ServiceError, instance: string, correlationId: string): Response {
  const headers: Record<string, string> = {
    "content-type": PROBLEM_CONTENT_TYPE,
    "x-correlation-id": correlationId,
    ...(error.headers ?? {}),
  };
  if (error.status === 401) headers["www-authenticate"] = 'Bearer realm="aml", ApiKey header="X-Api-Key"';
  return new Response(JSON.stringify(problemBody(error, instance, correlationId)), { status: error.status, headers });
}
