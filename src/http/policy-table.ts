import type { AnyElysia } from "elysia";
import type { Policy } from "@/auth/roles";
import { POLICY_ROLES } from "@/auth/roles";

export type RoutePolicy = Policy | "public";
/** What may call a route, as the table and its schema (routes/policies.ts) name it. */
export const ROUTE_CREDENTIALS = ["api key or bearer", "bearer only", "none"] as const;
export type RouteCredentials = (typeof ROUTE_CREDENTIALS)[number];

export interface PolicyRow {
  method: string;
  /** OpenAPI style: `/v1/tenants/{id}`. */
  path: string;
  policy: RoutePolicy;
  credentials: RouteCredentials;
}

const POLICIES = Object.keys(POLICY_ROLES) as Policy[];
/** Every policy a route can have, as the table and its schema (routes/policies.ts) name them. */
export const ROUTE_POLICIES: readonly RoutePolicy[] = [...POLICIES, "public"];
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

function isPolicy(value: unknown): value is Policy {
  return typeof value === "string" && (POLICIES as string[]).includes(value);
}

function credentialsFor(policy: RoutePolicy): RouteCredentials {
  if (policy === "public") return "none";
  return policy === "Admin" ? "bearer only" : "api key or bearer";
}

/** Elysia's `:id` and `*` as OpenAPI path templates. */
function openApiPath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      if (segment.startsWith(":")) return `{${segment.slice(1).replace(/\?$/, "")}}`;
      return segment === "*" ? "{*}" : segment;
    })
    .join("/");
}

function methodRank(method: string): number {
  const i = METHOD_ORDER.indexOf(method);
  return i === -1 ? METHOD_ORDER.length : i;
}

/**
 * Every documented route of a built app with the policy its guard enforces, read from the
 * `x-policy` that `secured()` puts in the route's OpenAPI detail. A route without one is public.
 * Hidden routes (the explorer, its assets and the OpenAPI document) are left out.
 * Sorted by path, then method.
 */
export function policyTable(app: AnyElysia): PolicyRow[] {
  const rows = new Map<string, PolicyRow>();
  for (const route of app.routes) {
    const detail = (route.hooks as { detail?: Record<string, unknown> } | undefined)?.detail ?? {};
    if (detail["hide"] === true) continue;
    const method = route.method.toUpperCase();
    if (method === "ALL") continue;
    const declared = detail["x-policy"];
    if (declared !== undefined && !isPolicy(declared)) {
      throw new Error(`route ${method} ${route.path} declares unknown x-policy ${JSON.stringify(declared)}`);
    }
    const policy: RoutePolicy = declared ?? "public";
    const path = openApiPath(route.path);
    rows.set(`${method} ${path}`, { method, path, policy, credentials: credentialsFor(policy) });
  }
  return [...rows.values()].sort((a, b) =>
    a.path === b.path ? methodRank(a.method) - methodRank(b.method) : a.path < b.path ? -1 : 1,
  );
}

/** Roles that satisfy a row's policy (none needed for public routes). */
export function rolesFor(policy: RoutePolicy): readonly string[] {
  return policy === "public" ? [] : POLICY_ROLES[policy];
}

/** The table as Markdown, for docs/policies.md (scripts/gen-policy-table.ts). */
export function policyMarkdown(rows: readonly PolicyRow[]): string {
  const lines = [
    "| Method | Path | Policy | Roles allowed | Credentials |",
    "|---|---|---|---|---|",
    ...rows.map((r) => {
      const roles = r.policy === "public" ? "anyone" : rolesFor(r.policy).join(", ");
      return `| ${r.method} | \`${r.path}\` | ${r.policy} | ${roles} | ${r.credentials} |`;
    }),
  ];
  return `${lines.join("\n")}\n`;
}
