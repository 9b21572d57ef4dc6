import { countryToIso2 } from "../../../lib/countries";
import { COUNTRY_QIDS } from "./country-qids";
import { bestLabel, itemIds, snakString, statements, type WdEntity } from "./json";

/** What we need to know about an item a person's claims point at: its label and its country. */
export interface WikidataItemInfo {
  label?: string;
  /** From P297 (ISO 3166-1 alpha-2) when the item is a country. */
  iso2?: string;
  /** Items of P17 (country), P1001 (jurisdiction), P361 (part of), P2389 (organisation directed). */
  country: string[];
  jurisdiction: string[];
  partOf: string[];
}

/**
 * Labels and country facts for referenced items, built by the caller from every JSON file of a
 * directory (the `*.labels.json` responses and any full position or country entities).
 */
export type WikidataLookup = Map<string, WikidataItemInfo>;

export function addToLookup(lookup: WikidataLookup, entity: WdEntity): void {
  const existing = lookup.get(entity.id);
  const iso = snakString(statements(entity, "P297")[0]?.mainsnak)?.toUpperCase();
  const info: WikidataItemInfo = {
    label: bestLabel(entity) ?? existing?.label,
    iso2: iso ?? existing?.iso2,
    country: [...(existing?.country ?? []), ...itemIds(entity, "P17")],
    jurisdiction: [...(existing?.jurisdiction ?? []), ...itemIds(entity, "P1001")],
    partOf: [...(existing?.partOf ?? []), ...itemIds(entity, "P361"), ...itemIds(entity, "P2389")],
  };
  lookup.set(entity.id, info);
}

export function buildWikidataLookup(entities: Iterable<WdEntity>): WikidataLookup {
  const lookup: WikidataLookup = new Map();
  for (const entity of entities) addToLookup(lookup, entity);
  return lookup;
}

export function labelOf(lookup: WikidataLookup, id: string): string | undefined {
  return lookup.get(id)?.label;
}

/** ISO code of a country item: P297 when known, else its English label, else the built-in table. */
export function countryOfItem(lookup: WikidataLookup, id: string): string | undefined {
  const info = lookup.get(id);
  return info?.iso2 ?? countryToIso2(info?.label) ?? COUNTRY_QIDS[id];
}
