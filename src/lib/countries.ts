import { ALPHA3_BY_ALPHA2, COUNTRY_ROWS } from "./countries-data";

export interface Country {
  iso2: string;
  name: string;
}

/** Lowercase, no diacritics or punctuation, single spaces, no leading "the". */
export function normalizeCountryText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/['’`.]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .replace(/^the /, "");
}

const BY_NAME = new Map<string, string>();
const BY_CODE = new Map<string, Country>();
const BY_ALPHA3 = new Map<string, string>(Object.entries(ALPHA3_BY_ALPHA2).map(([iso2, iso3]) => [iso3, iso2]));
for (const [iso2, names] of COUNTRY_ROWS) {
  const all = names.split("|");
  BY_CODE.set(iso2, { iso2, name: all[0] ?? iso2 });
  for (const name of all) BY_NAME.set(normalizeCountryText(name), iso2);
}

/** Every known country, sorted by code. */
export function listCountries(): Country[] {
  return [...BY_CODE.values()];
}

export function isIso2(code: string): boolean {
  return BY_CODE.has(code.toUpperCase());
}

export function countryName(iso2: string): string | undefined {
  return BY_CODE.get(iso2.toUpperCase())?.name;
}

/**
 * Maps a country name, variant, demonym or ISO alpha-2 or alpha-3 code (any case) to the ISO
 * 3166-1 alpha-2 code. A code is read before a name, so "CAN" is Canada. Returns undefined for unknown or historic states (Soviet Union, Yugoslavia),
 * since guessing a successor state would put a wrong country on an official record.
 */
export function countryToIso2(text: string | undefined | null): string | undefined {
  if (!text) return undefined;
  const trimmed = text.trim().replace(/^Region:\s*/i, "");
  if (trimmed.length === 2 && BY_CODE.has(trimmed.toUpperCase())) return trimmed.toUpperCase();
  if (trimmed.length === 3) {
    const fromAlpha3 = BY_ALPHA3.get(trimmed.toUpperCase());
    if (fromAlpha3) return fromAlpha3;
  }
  const norm = normalizeCountryText(trimmed);
  if (!norm) return undefined;
  const exact = BY_NAME.get(norm);
  if (exact) return exact;
  const noParens = normalizeCountryText(trimmed.replace(/\([^)]*\)/g, " "));
  const fromParens = BY_NAME.get(noParens);
  if (fromParens) return fromParens;
  const beforeComma = trimmed.split(",")[0];
  if (beforeComma && beforeComma !== trimmed) return BY_NAME.get(normalizeCountryText(beforeComma));
  return undefined;
}
