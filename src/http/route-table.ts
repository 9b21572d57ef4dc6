import type { AnyElysia } from "elysia";
import { ServiceError } from "@/errors";

export interface RouteTable {
  /** literal: the path has no parameter or wildcard segment (POST /v1/screenings/check). */
  entries: ReadonlyArray<{ method: string; pattern: RegExp; literal: boolean }>;
}

/** A path parameter (":id") or a wildcard ("*"), as Elysia writes them. */
function isParamSegment(segment: string): boolean {
  return segment.startsWith(":") || segment === "*";
}

function toPattern(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((segment) => {
      if (!isParamSegment(segment)) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return segment === "*" ? ".*" : "[^/]+";
    })
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

export function routeTable(app: AnyElysia): RouteTable {
  return {
    entries: app.routes.map((route) => ({
      method: route.method.toUpperCase(),
      pattern: toPattern(route.path),
      literal: !route.path.split("/").some(isParamSegment),
    })),
  };
}

/**
 * The answer to a request no route matched: a 404 naming the feature for a contract endpoint this
 * version does not serve, else a 405 with Allow when the path exists under other methods, else a
 * plain 404.
 */
export function routeNotFound(table: RouteTable, request: Request): ServiceError {
  const path = new URL(request.url).pathname;
  return (
    notInThisVersion(request.method, path) ??
    methodNotAllowed(table, request.method, path) ??
    new ServiceError("ROUTE_NOT_FOUND", `No route ${request.method} ${path}`)
  );
}

/**
 * A 405 with Allow when the path exists under other methods; null when the path is unknown (404).
 * A path that is a route of its own names only that route's methods: /v1/screenings/check is the
 * POST that screens, not also an id for GET /v1/screenings/{id}.
 */
function methodNotAllowed(table: RouteTable, method: string, path: string): ServiceError | null {
  const matching = table.entries.filter((e) => e.pattern.test(path));
  const literal = matching.filter((e) => e.literal);
  return notAllowed(literal.length > 0 ? literal : matching, method, path);
}

/**
 * A route's own 404 for a path that is another method's route (GET /v1/screenings/check reaches
 * GET /v1/screenings/{id} with the id "check"): the 405 that method gets there. Null otherwise.
 */
export function literalRouteElsewhere(table: RouteTable, method: string, path: string): ServiceError | null {
  const literal = table.entries.filter((e) => e.literal && e.pattern.test(path));
  // The request's own route is literal (its 404 is its own answer), HEAD answered as GET.
  const asked = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  if (literal.some((e) => e.method === asked)) return null;
  return notAllowed(literal, method, path);
}

function notAllowed(routes: RouteTable["entries"], method: string, path: string): ServiceError | null {
  const allowed = new Set(routes.map((e) => e.method));
  allowed.delete(method.toUpperCase());
  if (allowed.size === 0) return null;
  if (allowed.has("GET")) allowed.add("HEAD");
  const allow = [...allowed].filter((m) => m !== "ALL").sort().join(", ");
  return new ServiceError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}; allowed: ${allow}.`, {
    headers: { allow },
  });
}

/**
 * Endpoints of the service's contract that this version does not serve yet, by the feature that
 * brings them. A client following the contract gets a 404 that says so, instead of a bare "no route"
 * or, where a path happens to fit another route (POST /v1/screenings/batch fits GET
 * /v1/screenings/{id}), a 405 whose Allow header points at the wrong operation.
 */
const NOT_IN_THIS_VERSION: ReadonlyArray<{ methods: readonly string[]; pattern: RegExp; feature: string; instead?: string }> = [
  {
    methods: ["GET", "POST"],
    pattern: /^\/v1\/screenings\/batch(\/[^/]+(\/(results|report))?)?\/?$/,
    feature: "asynchronous batch jobs",
    instead: "POST /v1/screenings/bulk screens up to 1,000 subjects in one request",
  },
  { methods: ["GET", "POST"], pattern: /^\/v1\/cases(\/export|\/[^/]+(\/(regulator-pack|review))?)?\/?$/, feature: "case management" },
  { methods: ["GET", "PUT"], pattern: /^\/v1\/(branding|tenants\/[^/]+\/branding)\/?$/, feature: "tenant branding" },
  { methods: ["GET"], pattern: /^\/docs\/reference(\/.*)?$/, feature: "the reference pages", instead: "the API explorer is at /swagger-ui and the OpenAPI document at /openapi.json" },
];

/** A 404 naming the feature when the request is for a contract endpoint this version does not serve; else null. */
export function notInThisVersion(requestMethod: string, path: string): ServiceError | null {
  const method = requestMethod.toUpperCase();
  const later = NOT_IN_THIS_VERSION.find((e) => e.methods.includes(method === "HEAD" ? "GET" : method) && e.pattern.test(path));
  if (!later) return null;
  return new ServiceError(
    "ROUTE_NOT_FOUND",
    `${method} ${path} belongs to ${later.feature}, which this version of the appliance does not provide${later.instead ? `; ${later.instead}` : ""}.`,
  );
}
