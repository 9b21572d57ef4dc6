import { PEP_TIERS, type PepInfo, type PepTier, type WatchlistEntity } from "./entity";

/**
 * PEP tiers of an entity for a tenant whose home country is `homeCountry` (ISO alpha-2):
 * - InternationalOrganization: a position flagged international (UN, EU institutions, NATO, ...).
 * - Domestic: a position whose country is the home country.
 * - Foreign: a position in any other country, or with no known country. Unknown counts as
 *   foreign because foreign PEPs always need enhanced due diligence (FATF R.12), so the
 *   stricter treatment is the safe default.
 * - FamilyOrAssociate: no position of its own, but listed through a relation to a PEP. A PEP's
 *   own family links (kept on its record for reviewers) do not add this tier.
 * Without a home country no position is Domestic.
 * Former positions count like current ones: how long PEP status lasts after leaving office is
 * a risk decision for the screening policy, not for this function. Tiers come back in
 * PEP_TIERS order without duplicates; an entity without PEP facts has none.
 */
export function derivePepTiers(entity: Pick<WatchlistEntity, "pep">, homeCountry: string | null | undefined): PepTier[] {
  return pepTiersOf(entity.pep ? pepTierFacts(entity.pep) : null, homeCountry);
}

/** The part of PepInfo that tiers depend on (what the matching index keeps per entity). */
export interface PepTierFacts {
  readonly positions: readonly { readonly country?: string; readonly international: boolean }[];
  readonly relationCount: number;
}

export function pepTierFacts(pep: PepInfo): PepTierFacts {
  return {
    positions: pep.positions.map((p) => (p.country === undefined ? { international: p.international } : { country: p.country, international: p.international })),
    relationCount: pep.relations.length,
  };
}

export function pepTiersOf(pep: PepTierFacts | null, homeCountry: string | null | undefined): PepTier[] {
  if (!pep) return [];
  const home = homeCountry?.trim().toUpperCase();
  const tiers = new Set<PepTier>();
  for (const position of pep.positions) {
    if (position.international) tiers.add("InternationalOrganization");
    else if (home && position.country?.toUpperCase() === home) tiers.add("Domestic");
    else tiers.add("Foreign");
  }
  if (pep.positions.length === 0 && pep.relationCount > 0) tiers.add("FamilyOrAssociate");
  return PEP_TIERS.filter((t) => tiers.has(t));
}
