import { eq } from "drizzle-orm";
import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { parseInput } from "@/lib/validate";
import { writeTx } from "@/storage/db";
import type { PreparedWrite } from "@/storage/group-commit";
import { tenants } from "@/storage/schema";
import { getTenantRow, toTenant } from "./internal";
import { SetQuotaInput, type Tenant } from "./schemas";

/** Sets or clears (null) a tenant's monthly screening quota. The next charge reads the new value. */
export function setQuota(ctx: AppContext, tenantRef: string, rawInput: unknown, meta: CallMeta): Tenant {
  return prepareSetQuota(ctx, tenantRef, rawInput, meta)();
}

/** setQuota with its input checked and its tenant found now, and the write returned for the group commit. */
export function prepareSetQuota(ctx: AppContext, tenantRef: string, rawInput: unknown, meta: CallMeta): PreparedWrite<Tenant> {
  const input = parseInput(SetQuotaInput, rawInput, "Quota");
  getTenantRow(ctx.db, tenantRef);
  return () => writeTx(ctx.db, () => {
    const row = getTenantRow(ctx.db, tenantRef);
    const now = ctx.clock.now();
    ctx.db.orm
      .update(tenants)
      .set({ monthlyQuota: input.monthlyScreeningQuota, updatedAt: now.toISOString() })
      .where(eq(tenants.id, row.id))
      .run();
    appendAudit(ctx.db, {
      chain: row.id,
      action: "quota.set",
      targetType: "tenant",
      targetId: row.id,
      at: now,
      meta,
      details: { previous: row.monthlyQuota, monthlyScreeningQuota: input.monthlyScreeningQuota },
    });
    return toTenant({ ...row, monthlyQuota: input.monthlyScreeningQuota, updatedAt: now.toISOString() });
  });
}
