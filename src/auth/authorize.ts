import { ServiceError } from "@/errors";
import { isUuid, storedId } from "@/lib/ids";
import type { Db } from "@/storage/db";
import { cachedSetting } from "@/storage/row-cache";
import type { Principal, TenantCaller } from "./principal";
import { type Policy, satisfies } from "./roles";

/** Tenant-scoped routes: role satisfies the policy, and the credential carries an existing, active tenant. */
export function authorizeTenant(db: Db, principal: Principal, policy: Policy): TenantCaller {
  if (!satisfies(principal.roles, policy)) {
    throw new ServiceError("FORBIDDEN", `This operation needs the ${policy} policy; the credential's roles (${principal.roles.join(", ") || "none"}) do not satisfy it.`);
  }
  if (principal.tenantId === null) {
    if (principal.tenantClaimIssue !== undefined) {
      throw new ServiceError("NO_USABLE_TENANT", `The credential carries no usable tenant: ${principal.tenantClaimIssue}.`);
    }
    throw new ServiceError("NO_USABLE_TENANT", "The credential carries no tenant; a tenant-scoped operation needs a tenant_id claim or a tenant API key.");
  }
  // A UUID in either case names the same tenant (ids are stored lower case); a slug is compared as written.
  const claimed = storedId(principal.tenantId);
  const tenant = cachedSetting(db.sqlite, `tenant-status:${claimed}`, () =>
    db.sqlite
      .query<{ id: string; status: string }, [string, string]>("SELECT id, status FROM tenants WHERE id = ? OR slug = ? LIMIT 1")
      .get(isUuid(claimed) ? claimed : "", claimed),
  );
  if (!tenant) throw new ServiceError("NO_USABLE_TENANT", "The credential's tenant does not exist.");
  // Only a holder of the tenant's own key, or a token the IdP issued for it, learns it is suspended.
  if (tenant.status !== "active") {
    throw new ServiceError("NO_USABLE_TENANT", "The credential's tenant is suspended: its screenings, keys and records are kept, but it cannot call the API until the appliance administrator resumes it.");
  }
  return { ...principal, tenantId: tenant.id };
}

/** Admin routes accept only bearer tokens with the admin role (spec, Authentication rule 2). */
export function authorizeAdmin(principal: Principal): Principal {
  if (principal.credential !== "bearer") {
    throw new ServiceError("FORBIDDEN", "Admin operations accept an OIDC bearer token only; API keys are tenant credentials.");
  }
  if (!satisfies(principal.roles, "Admin")) {
    throw new ServiceError("FORBIDDEN", "This operation needs the Admin policy (role admin).");
  }
  return principal;
}
