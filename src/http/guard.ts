import { Elysia } from "elysia";
import { authorizeAdmin, authorizeTenant } from "@/auth/authorize";
import type { Principal, TenantCaller } from "@/auth/principal";
import type { Policy } from "@/auth/roles";
import { principalOf } from "./authenticate";
import type { HttpDeps } from "./deps";
import { requestState } from "./request-state";

/**
 * Route options `tenant: <Policy>` and `admin: true` resolve the caller before the handler runs.
 * Handlers receive `caller` (tenant-scoped) or `admin` and never read a tenant from the request body.
 */
export function guard(deps: HttpDeps) {
  // Authentication runs in `transform`, before query/body validation, so an unauthenticated caller
  // gets 401 rather than a 400 that would describe the route's schema. For a large body on a route that
  // takes one (bulk, the list upload) it also ran, with the policy check, before the body was read
  // (app.ts onParse); both run again here, once the body is in: a key revoked or a tenant suspended
  // while an upload arrived does not act (principalOf).
  const callers = new WeakMap<Request, TenantCaller>();
  const admins = new WeakMap<Request, Principal>();
  return new Elysia().macro({
    tenant: (policy: Policy) => ({
      async transform({ request }) {
        const caller = authorizeTenant(deps.db, await principalOf(deps, request), policy);
        requestState(request).tenantId = caller.tenantId;
        callers.set(request, caller);
      },
      resolve({ request }): { caller: TenantCaller } {
        const caller = callers.get(request);
        if (!caller) throw new Error("tenant guard: transform did not run");
        return { caller };
      },
    }),
    admin: (_enabled: true) => ({
      async transform({ request }) {
        admins.set(request, authorizeAdmin(await principalOf(deps, request)));
      },
      resolve({ request }): { admin: Principal } {
        const admin = admins.get(request);
        if (!admin) throw new Error("admin guard: transform did not run");
        return { admin };
      },
    }),
  });
}

/** OpenAPI detail for a guarded route; x-policy feeds the policy table in the reference docs. */
export function secured(policy: Policy, detail: { summary: string; description?: string; tags: string[] }) {
  const bearerOnly = policy === "Admin";
  const security: Array<Record<string, string[]>> = bearerOnly ? [{ bearer: [] }] : [{ apiKey: [] }, { bearer: [] }];
  return {
    ...detail,
    "x-policy": policy,
    security,
  };
}
