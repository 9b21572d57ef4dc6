import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { parseInput } from "@/lib/validate";
import { defaultProfile, RiskProfileOptions } from "@/matching/options";
import { type Db, writeTx } from "@/storage/db";
import type { PreparedWrite } from "@/storage/group-commit";
import { getTenantRow } from "@/tenants/internal";

/** A tenant's risk profile as the API shows it; `isDefault` is true while none was ever set. */
export interface RiskProfile {
  tenantId: string;
  options: RiskProfileOptions;
  isDefault: boolean;
  updatedAt: string | null;
  updatedBy: string | null;
}

interface ProfileRow {
  options: string;
  updated_at: string;
  updated_by: string;
}

/**
 * A profile's options from the stored JSON (null: none stored, the documented defaults). Re-parsed
 * so a default added later fills in.
 */
export function profileOptionsFromText(storedJson: string | null): RiskProfileOptions {
  return storedJson === null ? defaultProfile() : RiskProfileOptions.parse(JSON.parse(storedJson));
}

/** The stored profile, or the documented defaults. */
export function readRiskProfile(db: Db, tenantId: string): RiskProfile {
  const row = db.sqlite
    .query<ProfileRow, [string]>("SELECT options, updated_at, updated_by FROM risk_profiles WHERE tenant_id = ?")
    .get(tenantId);
  if (!row) return { tenantId, options: profileOptionsFromText(null), isDefault: true, updatedAt: null, updatedBy: null };
  return {
    tenantId,
    options: profileOptionsFromText(row.options),
    isDefault: false,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
  };
}

/** Fetch-or-404 by tenant id or slug (the CLI accepts either). */
export function getRiskProfile(db: Db, tenantRef: string): RiskProfile {
  return readRiskProfile(db, getTenantRow(db, tenantRef).id);
}

/**
 * Replaces a tenant's profile: omitted fields take their defaults (PUT semantics). Audited as
 * profile.set with the previous and new options, in the same transaction.
 */
export function setRiskProfile(ctx: AppContext, tenantRef: string, rawInput: unknown, meta: CallMeta): RiskProfile {
  return prepareSetRiskProfile(ctx, tenantRef, rawInput, meta)();
}

/** setRiskProfile with its options checked and its tenant found now, and the write returned for the group commit. */
export function prepareSetRiskProfile(ctx: AppContext, tenantRef: string, rawInput: unknown, meta: CallMeta): PreparedWrite<RiskProfile> {
  const options = parseInput(RiskProfileOptions, rawInput, "Risk profile");
  getTenantRow(ctx.db, tenantRef);
  return () => writeTx(ctx.db, () => {
    const tenant = getTenantRow(ctx.db, tenantRef);
    const previous = readRiskProfile(ctx.db, tenant.id);
    const at = ctx.clock.now().toISOString();
    const by = `${meta.actor.type}:${meta.actor.id}`;
    ctx.db.sqlite.run(
      `INSERT INTO risk_profiles (tenant_id, options, updated_at, updated_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant_id) DO UPDATE SET options = excluded.options, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [tenant.id, JSON.stringify(options), at, by],
    );
    appendAudit(ctx.db, {
      chain: tenant.id,
      action: "profile.set",
      targetType: "tenant",
      targetId: tenant.id,
      at: new Date(at),
      meta,
      details: { previous: previous.isDefault ? null : previous.options, options },
    });
    return { tenantId: tenant.id, options, isDefault: false, updatedAt: at, updatedBy: by };
  });
}
