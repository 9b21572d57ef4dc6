import type { AnyElysia } from "elysia";
import { ServiceError } from "@/errors";

export interface RouteTable {
  entries: ReadonlyArray<{ method: string; pattern: RegExp }>;
}

function toPattern(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((segment) => {
      if (segment.startsWith(":")) return "[^/]+";
      if (segment === "*") return ".*";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

export function routeTable(app: AnyElysia): RouteTable {
  return { entries: app.routes.map((route) => ({ method: route.method.toUpperCase(), pattern: toPattern(route.path) })) };
}

/** A 405 with Allow when the path exists under other methods; null when the path is unknown (404). */
export function methodNotAllowed(table: RouteTable, request: Request): ServiceError | null {
  const path = new URL(request.url).pathname;
  const allowed = new Set(table.entries.filter((e) => e.pattern.test(path)).map((e) => e.method));
  allowed.delete(request.method.toUpperCase());
  if (allowed.size === 0) return null;
  if (allowed.has("GET")) allowed.add("HEAD");
  const allow = [...allowed].filter((m) => m !== "ALL").sort().join(", ");
  return new ServiceError("METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${path}; allowed: ${allow}.`, {
    headers: { allow },
  });
}
