import type { AnyElysia } from "elysia";

/**
 * A route whose JSON body may be larger than the app-wide maxJsonBodyBytes declares its own limit in
 * its OpenAPI detail under this key, so the limit the server enforces is the one the document shows.
 * Only static paths (no `:param`) may declare one, and only guarded routes (an `x-policy`, from
 * secured()): a body over maxJsonBodyBytes is read only once the caller is authenticated (app.ts).
 */
export const MAX_BODY_BYTES = "x-max-body-bytes";

/** `METHOD /path` → declared byte limit, read from the built app's routes. */
export function declaredBodyLimits(app: AnyElysia): Map<string, number> {
  const limits = new Map<string, number>();
  for (const route of app.routes) {
    const detail = (route.hooks as { detail?: Record<string, unknown> } | undefined)?.detail;
    const limit = detail?.[MAX_BODY_BYTES];
    if (limit === undefined) continue;
    if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1) {
      throw new Error(`route ${route.method} ${route.path} declares ${MAX_BODY_BYTES} ${JSON.stringify(limit)}; expected a positive integer`);
    }
    if (/[:*]/.test(route.path)) throw new Error(`route ${route.method} ${route.path}: ${MAX_BODY_BYTES} is supported on static paths only`);
    if (detail?.["x-policy"] === undefined) {
      throw new Error(`route ${route.method} ${route.path} declares ${MAX_BODY_BYTES} without a policy: only a guarded route may take a body over maxJsonBodyBytes`);
    }
    limits.set(bodyLimitKey(route.method, route.path), limit);
  }
  return limits;
}

export function bodyLimitKey(method: string, path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return `${method.toUpperCase()} ${trimmed}`;
}
