/**
 * The one normalised entity model every importer produces and the matching engine consumes.
 * Importers map official records into it; nothing downstream knows a source's file format.
 */

import type { CutShortFile } from "./errors";

/** The watchlist sources named by the spec. Values are the wire names used in the API. */
export const SOURCE_LISTS = ["OFAC", "EU", "UK", "UN", "WIKIDATA"] as const;
export type SourceList = (typeof SOURCE_LISTS)[number];

export function isSourceList(value: string): value is SourceList {
  return (SOURCE_LISTS as readonly string[]).includes(value);
}

/** Sanctions lists rank above PEP data in risk; WIKIDATA is the PEP source. */
export const SANCTIONS_LISTS: readonly SourceList[] = ["OFAC", "EU", "UK", "UN"];

export type EntityType = "person" | "organisation" | "vessel" | "aircraft";

/**
 * strong: an alias the publisher considers reliable (OFAC "strong", UN "Good", OFSI "Good quality").
 * weak: a low-quality alias (OFAC "weak", UN "Low", OFSI "Low quality", EU strong="false");
 * matches on weak aliases are scored lower.
 */
export type AliasQuality = "strong" | "weak";

/** How the name relates to the record: its main name, an alias, a former or new name. */
export type NameKind = "primary" | "aka" | "fka" | "nka";

export interface EntityName {
  /** The name as published (whole name, in the publisher's order). */
  name: string;
  kind: NameKind;
  quality: AliasQuality;
  /** True when the name is in a non-Latin original script (Arabic, Cyrillic, CJK, ...). */
  originalScript: boolean;
  /** ISO 639-1 language code when the publisher gives one. */
  lang?: string;
}

/**
 * A date that may be partial. `date` is "YYYY", "YYYY-MM" or "YYYY-MM-DD".
 * A range ("between 1960 and 1965") is given as yearFrom/yearTo with `date` = yearFrom.
 */
export interface PartialDate {
  date: string;
  circa?: boolean;
  yearFrom?: number;
  yearTo?: number;
}

export interface BirthRecord extends PartialDate {
  place?: string;
  /** ISO 3166-1 alpha-2 of the place of birth, when known. */
  country?: string;
}

export interface Identifier {
  /** Normalised type: passport, national_id, tax_id, imo, mmsi, registration, swift_bic, other, ... */
  type: string;
  /** The type as the publisher wrote it. */
  label?: string;
  number: string;
  /** ISO 3166-1 alpha-2 of the issuing country, when known. */
  country?: string;
  note?: string;
}

export interface Address {
  full: string;
  city?: string;
  /** ISO 3166-1 alpha-2, when known. */
  country?: string;
}

export type PepTier = "Domestic" | "Foreign" | "InternationalOrganization" | "FamilyOrAssociate";
export const PEP_TIERS: readonly PepTier[] = ["Domestic", "Foreign", "InternationalOrganization", "FamilyOrAssociate"];
/** The spec's short codes for the tiers (PEP1..PEP4). */
export const PEP_TIER_CODES: Record<PepTier, string> = {
  Domestic: "PEP1",
  Foreign: "PEP2",
  InternationalOrganization: "PEP3",
  FamilyOrAssociate: "PEP4",
};

export interface PepPosition {
  title: string;
  /** Wikidata Q-id of the position, when known. */
  positionId?: string;
  /** ISO 3166-1 alpha-2 of the country the position belongs to; absent for international bodies. */
  country?: string;
  /** True for positions in international bodies (UN, EU institutions, NATO, IMF, ...). */
  international: boolean;
  start?: string;
  end?: string;
}

export interface PepRelation {
  /** External id (Q-id) of the related PEP. */
  relatedId: string;
  relatedName?: string;
  /** spouse, child, parent, sibling, relative, associate, ... */
  relationship: string;
}

/**
 * PEP facts needed to derive the tier at screening time. The tier itself depends on the
 * tenant's home country (Domestic vs Foreign), so it is not fixed at import.
 */
export interface PepInfo {
  positions: PepPosition[];
  /** Set when the person is on the list because of a link to a PEP rather than a position. */
  relations: PepRelation[];
}

export interface WatchlistEntity {
  source: SourceList;
  /** Id of the official record: OFAC uid/ent_num, EU logicalId, UK group id, UN reference number, Wikidata Q-id. */
  externalId: string;
  entityType: EntityType;
  primaryName: string;
  /** Every name of the record, the primary name first. */
  names: EntityName[];
  birth: BirthRecord[];
  /** ISO 3166-1 alpha-2 codes (nationality and citizenship merged, de-duplicated). */
  nationalities: string[];
  identifiers: Identifier[];
  addresses: Address[];
  /** Programmes / regimes (OFAC programme codes, EU programme, UK regime, UN list type). */
  programmes: string[];
  /** Date of listing (designation), "YYYY-MM-DD" or partial. */
  listedOn?: string;
  deceased: boolean;
  dateOfDeath?: string;
  pep?: PepInfo;
  gender?: "male" | "female";
  remarks?: string;
  /** A public URL where a reviewer can verify the official record. */
  verifyUrl: string;
  /**
   * The publisher's own reference for the record when it differs from externalId (EU reference
   * number "EU.27.28", UK Sanctions List Ref "RUS0001"), for searching where verifyUrl cannot
   * link to the record itself.
   */
  sourceRef?: string;
}

/** What one importer run yields for one source, before it becomes a stored list version. */
export interface ParsedList {
  source: SourceList;
  /** A short name of the file format, e.g. "ofac-csv", "ofac-xml", "eu-xml-1.1", "uk-ofsi-xlsx". */
  format: string;
  /** Publication date found inside the file (ISO date or date-time). */
  publishedAt: string | null;
  entities: WatchlistEntity[];
  /** Non-fatal problems worth reporting (skipped rows with their location and reason). */
  warnings: string[];
  /** Names of the input files this list was read from (an OFAC CSV set is several files). */
  files: string[];
  /** Main tables its own companion files show to be cut short (OFAC CSV sets): the import is refused unless allowed. */
  cutShort?: CutShortFile[];
}
