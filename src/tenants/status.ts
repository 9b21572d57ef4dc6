import { eq } from "drizzle-orm";
import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { parseInput } from "@/lib/validate";
import { writeTx } from "@/storage/db";
import type { PreparedWrite } from "@/storage/group-commit";
import { tenants } from "@/storage/schema";
import { getTenantRow, toTenant } from "./internal";
import { StatusChangeInput, type Tenant } from "./schemas";

export type TenantStatus = Tenant["status"];

/**
 * Suspends or resumes a tenant. A suspended tenant keeps everything it has (screenings, cases, keys,
 * audit chain, usage) but none of its credentials is accepted: every tenant-scoped call answers 403
 * NO_USABLE_TENANT from the next request on, in this process or another (the row cache checks
 * `PRAGMA data_version`). A request already past authorisation when the suspension commits (a bulk
 * being screened) still completes, and its entries follow tenant.suspend in the chain. Resuming
 * restores the same keys. Events queued before the suspension are
 * still delivered: they report screenings the tenant made while active, to the receiver it chose.
 *
 * The reason is required both ways and goes into the tenant's audit chain, so the chain itself says
 * when and why its owner could not screen. Asking for the state the tenant is already in is 409, as
 * revoking a revoked key is: nothing is written, so the chain holds no empty entries.
 */
export function setTenantStatus(ctx: AppContext, tenantRef: string, status: TenantStatus, rawInput: unknown, meta: CallMeta): Tenant {
  return prepareTenantStatus(ctx, tenantRef, status, rawInput, meta)();
}

/** setTenantStatus with its reason checked and its tenant found now, and the write returned for the group commit. */
export function prepareTenantStatus(
  ctx: AppContext,
  tenantRef: string,
  status: TenantStatus,
  rawInput: unknown,
  meta: CallMeta,
): PreparedWrite<Tenant> {
  const input = parseInput(StatusChangeInput, rawInput, status === "suspended" ? "Suspension" : "Resumption");
  getTenantRow(ctx.db, tenantRef);
  return () => writeTx(ctx.db, () => {
    const row = getTenantRow(ctx.db, tenantRef);
    if (row.status === status) {
      throw new ServiceError("CONFLICT", `Tenant ${row.slug} is already ${status}${status === "suspended" ? "" : " (not suspended)"}`);
    }
    const now = ctx.clock.now();
    ctx.db.orm.update(tenants).set({ status, updatedAt: now.toISOString() }).where(eq(tenants.id, row.id)).run();
    appendAudit(ctx.db, {
      chain: row.id,
      action: status === "suspended" ? "tenant.suspend" : "tenant.resume",
      targetType: "tenant",
      targetId: row.id,
      at: now,
      meta,
      details: { previous: row.status, status, reason: input.reason },
    });
    return toTenant({ ...row, status, updatedAt: now.toISOString() });
  });
}
