import { ServiceError } from "@/errors";
import type { RiskProfileOverrides } from "@/matching/options";
import { type ResolvedOptions, resolveOptions } from "@/matching/options-resolve";
import { readRiskProfile } from "@/profiles/store";
import type { Db } from "@/storage/db";
import { isSourceList, type SourceList } from "@/watchlists/entity";

/**
 * The options a tenant's screen runs with: its risk profile, then the request's overrides, then
 * limited to the lists enabled for the tenant at onboarding. A selection that leaves no list is
 * refused rather than screened against nothing (which would read as Clear).
 */
export function optionsForTenant(db: Db, tenantId: string, overrides: RiskProfileOverrides = {}): ResolvedOptions {
  const profile = readRiskProfile(db, tenantId);
  const resolved = resolveOptions(profile.options, overrides);
  const enabled = enabledLists(db, tenantId);
  const lists = resolved.lists.filter((list) => enabled.has(list));
  if (lists.length === 0) {
    throw new ServiceError(
      "VALIDATION_FAILED",
      `The selected lists (${resolved.lists.join(", ")}) include none enabled for this tenant (${[...enabled].join(", ")}).`,
      { fieldIssues: [{ field: "options.lists", message: "selects no list enabled for this tenant" }] },
    );
  }
  return { ...resolved, lists };
}

function enabledLists(db: Db, tenantId: string): Set<SourceList> {
  const row = db.sqlite.query<{ enabled_lists: string }, [string]>("SELECT enabled_lists FROM tenants WHERE id = ?").get(tenantId);
  if (!row) throw new ServiceError("NOT_FOUND", `Tenant ${tenantId} not found`);
  return new Set((JSON.parse(row.enabled_lists) as string[]).filter(isSourceList));
}
