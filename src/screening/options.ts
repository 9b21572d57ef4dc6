import { ServiceError } from "@/errors";
import type { RiskProfileOverrides } from "@/matching/options";
import { looseningIssues } from "@/matching/options-policy";
import { type ResolvedOptions, resolveOptions } from "@/matching/options-resolve";
import { profileOptionsFromText } from "@/profiles/store";
import type { Db } from "@/storage/db";
import { cachedSetting } from "@/storage/row-cache";
import { isSourceList } from "@/watchlists/entity";

/**
 * The options a tenant's screen runs with: its risk profile, then the request's overrides (only
 * those the profile allows: matching/options-policy.ts), then limited to the lists enabled for the
 * tenant at onboarding. A request that names a list the tenant is not enabled for is refused: the
 * caller asked for that list by name, and a Clear screened without it would read as if it had been
 * checked. The profile's lists and a coverage preset's are limited silently, since they mean "these
 * lists where enabled". A selection that leaves no list is refused rather than screened against
 * nothing (which would read as Clear).
 *
 * The tenant row and the profile come through the connection's row cache, which drops them whenever
 * the database may have changed, so a change made by the CLI in another process applies to the next
 * screen. The resolution is memoised by the stored texts and the overrides: it is a pure function of
 * them, and costs three zod parses per screen otherwise.
 */
export function optionsForTenant(db: Db, tenantId: string, overrides: RiskProfileOverrides = {}): ResolvedOptions {
  const row = cachedSetting(db.sqlite, `tenant-options:${tenantId}`, () =>
    db.sqlite
      .query<{ enabled_lists: string; options: string | null }, [string]>(
        "SELECT t.enabled_lists, p.options FROM tenants t LEFT JOIN risk_profiles p ON p.tenant_id = t.id WHERE t.id = ?",
      )
      .get(tenantId),
  );
  if (!row) throw new ServiceError("NOT_FOUND", `Tenant ${tenantId} not found`);
  const key = `${row.options ?? ""}\u0000${row.enabled_lists}\u0000${JSON.stringify(overrides)}`;
  const known = resolved.get(key);
  if (known) return known;
  const options = resolve(row.options, row.enabled_lists, overrides);
  if (resolved.size >= MEMO_LIMIT) resolved.clear();
  resolved.set(key, options);
  return options;
}

/** Distinct (profile, enabled lists, overrides) combinations kept; cleared when full, as a miss only costs a resolution. */
const MEMO_LIMIT = 1_000;
const resolved = new Map<string, ResolvedOptions>();

function resolve(profileJson: string | null, enabledJson: string, overrides: RiskProfileOverrides): ResolvedOptions {
  const profile = profileOptionsFromText(profileJson);
  const enabled = new Set((JSON.parse(enabledJson) as string[]).filter(isSourceList));
  const notEnabled = (overrides.lists ?? []).filter((list) => !enabled.has(list));
  if (notEnabled.length > 0) {
    const message = `${notEnabled.join(", ")} ${notEnabled.length === 1 ? "is" : "are"} not enabled for this tenant (enabled: ${[...enabled].join(", ")})`;
    throw new ServiceError("VALIDATION_FAILED", `The selected lists include some this tenant cannot screen against: ${message}.`, {
      fieldIssues: [{ field: "options.lists", message }],
    });
  }
  const loosening = looseningIssues(profile, overrides, enabled);
  if (loosening.length > 0) {
    throw new ServiceError(
      "VALIDATION_FAILED",
      `The request's options would screen more loosely than the tenant's risk profile allows: ${loosening.map((i) => i.field).join(", ")}.`,
      { fieldIssues: loosening },
    );
  }
  const merged = resolveOptions(profile, overrides);
  const lists = merged.lists.filter((list) => enabled.has(list));
  if (lists.length === 0) {
    throw new ServiceError(
      "VALIDATION_FAILED",
      `The selected lists (${merged.lists.join(", ")}) include none enabled for this tenant (${[...enabled].join(", ")}).`,
      { fieldIssues: [{ field: "options.lists", message: "selects no list enabled for this tenant" }] },
    );
  }
  // Frozen because one object now serves many screenings: a mutation would leak into the others.
  return Object.freeze({ ...merged, lists: Object.freeze(lists), pepTiers: Object.freeze([...merged.pepTiers]) });
}
