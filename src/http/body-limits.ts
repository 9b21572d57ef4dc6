import type { AnyElysia } from "elysia";
import { POLICY_ROLES, type Policy } from "@/auth/roles";

/**
 * A route whose JSON body may be larger than the app-wide maxJsonBodyBytes declares its own limit in
 * its OpenAPI detail under this key, so the limit the server enforces is the one the document shows.
 */
export const MAX_BODY_BYTES = "x-max-body-bytes";

/**
 * What a route takes beyond the app-wide rule (a JSON body up to maxJsonBodyBytes, read before the
 * guard runs). Elysia reads a body before the guard authenticates, so only a guarded route on a
 * static path may take more, and app.ts authorizes the caller for `policy` before reading a body
 * there that may be over maxJsonBodyBytes: anyone else gets 401 or 403 before a byte of it is read.
 */
export interface BodyRule {
  policy: Policy;
  /** A JSON body up to this many bytes (MAX_BODY_BYTES), when more than maxJsonBodyBytes. */
  maxJsonBytes: number | null;
  /** The route takes a multipart upload (its OpenAPI requestBody offers multipart/form-data), which Elysia reads in full. */
  multipart: boolean;
}

interface RouteDetail {
  requestBody?: { content?: Record<string, unknown> };
  [key: string]: unknown;
}

/** `METHOD /path` → its body rule, for the routes that declare one, read from the built app's routes. */
export function declaredBodyRules(app: AnyElysia): Map<string, BodyRule> {
  const rules = new Map<string, BodyRule>();
  for (const route of app.routes) {
    const detail = (route.hooks as { detail?: RouteDetail } | undefined)?.detail;
    const limit = detail?.[MAX_BODY_BYTES];
    const multipart = detail?.requestBody?.content?.["multipart/form-data"] !== undefined;
    if (limit === undefined && !multipart) continue;
    const what = `route ${route.method} ${route.path}`;
    if (limit !== undefined && (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1)) {
      throw new Error(`${what} declares ${MAX_BODY_BYTES} ${JSON.stringify(limit)}; expected a positive integer`);
    }
    if (/[:*]/.test(route.path)) throw new Error(`${what}: a larger JSON body or a multipart upload is supported on static paths only`);
    const policy = detail?.["x-policy"];
    if (typeof policy !== "string" || !Object.hasOwn(POLICY_ROLES, policy)) {
      throw new Error(`${what} takes a larger JSON body or a multipart upload without a policy: only a guarded route may`);
    }
    rules.set(bodyLimitKey(route.method, route.path), { policy: policy as Policy, maxJsonBytes: limit ?? null, multipart });
  }
  return rules;
}

export function bodyLimitKey(method: string, path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return `${method.toUpperCase()} ${trimmed}`;
}

/**
 * The largest body any route of `app` accepts: the HTTP server's own hard limit must be above it, or
 * a body the route and its documentation accept (a bulk of 1,000 maximal rows, 125 MiB) would get the
 * server's bare 413 with no problem body, whatever maxUploadBytes an operator set for list uploads.
 */
export function largestAcceptedBody(app: AnyElysia, limits: { maxJsonBodyBytes: number; maxUploadBytes: number }): number {
  let largest = Math.max(limits.maxJsonBodyBytes, limits.maxUploadBytes);
  for (const rule of declaredBodyRules(app).values()) largest = Math.max(largest, rule.maxJsonBytes ?? 0);
  return largest;
}
