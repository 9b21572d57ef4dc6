import { ServiceError } from "@/errors";
import type { Db } from "@/storage/db";
import { listTenants } from "@/tenants/get";
import type { SourceList } from "@/watchlists/entity";
import type { LoadedLists } from "@/watchlists/runtime";
import { selectedListVersions, staleButLoaded } from "./list-versions";
import { optionsForTenant } from "./options";

/**
 * What a tenant's screens check right now, before it screens anyone: the lists its risk profile
 * selects (limited to the lists enabled for it), which of them the serving snapshot does not hold,
 * and which it holds with data older than the profile's maxDataAgeDays. A screen records the same
 * per screening (listVersions.notLoaded and listVersions.stale); this answers it ahead, for a
 * tenant that wants to know whether a Clear would cover every list it expects, and for the operator
 * who imports the files.
 */
export interface ListCoverage {
  /** The lists a screen without options checks; [] when the profile selects no enabled list (every screen is refused). */
  selected: SourceList[];
  /** Selected lists the snapshot does not hold: not checked, so a Clear says nothing about them. */
  notLoaded: SourceList[];
  /** Selected lists whose data is older than maxDataAgeDays or undated (not-loaded lists included); [] without a limit. */
  stale: SourceList[];
  maxDataAgeDays: number | null;
}

/** The serving snapshot and its versions, as a screen reads them. */
type Serving = Pick<LoadedLists<unknown>, "snapshot" | "versions">;

/**
 * The tenant's coverage by the serving snapshot: what a screen without options would record in
 * its listVersions now (selectedListVersions, the same derivation).
 */
export function listCoverage(db: Db, tenantId: string, serving: Serving, now: Date): ListCoverage {
  let options: ReturnType<typeof optionsForTenant>;
  try {
    options = optionsForTenant(db, tenantId);
  } catch (error) {
    // A profile whose lists leave none enabled: every screen is refused with 400, so nothing is covered.
    if (error instanceof ServiceError && error.code === "VALIDATION_FAILED") return { selected: [], notLoaded: [], stale: [], maxDataAgeDays: null };
    throw error;
  }
  const read = selectedListVersions(serving, options, now);
  return { selected: [...options.lists], notLoaded: read.notLoaded, stale: read.stale, maxDataAgeDays: options.maxDataAgeDays };
}

/** A tenant's coverage, named by its slug, for the operator's `aml lists status`. */
export interface TenantListCoverage extends ListCoverage {
  tenant: string;
}

/** Every active tenant's coverage (a suspended tenant cannot screen, so it has none to lose). */
export function coverageOfTenants(db: Db, serving: Serving, now: Date): TenantListCoverage[] {
  return listTenants(db)
    .filter((t) => t.status === "active")
    .map((t) => ({ tenant: t.slug, ...listCoverage(db, t.id, serving, now) }));
}

/** The coverage gaps by list: for each list, the tenants whose screens select it but do not check it, or check it on old data. */
export function coverageGaps(coverage: readonly TenantListCoverage[]): { notLoaded: Map<SourceList, string[]>; stale: Map<SourceList, string[]> } {
  const notLoaded = new Map<SourceList, string[]>();
  const stale = new Map<SourceList, string[]>();
  const add = (map: Map<SourceList, string[]>, list: SourceList, tenant: string) => {
    const tenants = map.get(list);
    if (tenants) tenants.push(tenant);
    else map.set(list, [tenant]);
  };
  for (const c of coverage) {
    for (const list of c.notLoaded) add(notLoaded, list, c.tenant);
    for (const list of staleButLoaded(c.stale, c.notLoaded)) add(stale, list, `${c.tenant} (maxDataAgeDays ${c.maxDataAgeDays})`);
  }
  return { notLoaded, stale };
}
