import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { countryName, countryToIso2 } from "../../src/lib/countries";
import type { WatchlistEntity } from "../../src/watchlists/entity";
import { parseListFiles } from "../../src/watchlists/parse-files";
import { WATCHLISTS_DIR } from "./shared-data";

/**
 * Name material for the production-scale generator, taken from the REAL list files in
 * ../shared/watchlists through the project's own parsers: person name tokens (given, middle,
 * surname, with their real frequencies), organisation and vessel name words, Cyrillic and Arabic
 * name tokens, cities, programmes and regimes, nationalities and real PEP position titles.
 * Generated names are recombinations of these tokens; no real record is copied whole.
 */
export interface NameTokens {
  given: string[];
  middle: string[];
  surname: string[];
  orgWords: string[];
  /** Last words of real organisation names (LLC, LIMITED, S.A., COMPANY, ...). */
  orgEnds: string[];
  vesselWords: string[];
  cyrillicGiven: string[];
  cyrillicSurname: string[];
  arabic: string[];
  cities: string[];
  /** OFAC programme codes as published (SDGT, RUSSIA-EO14024, ...), with their real frequencies. */
  ofacProgrammes: string[];
  ukRegimes: string[];
  /** ISO 3166-1 alpha-2 codes of the sanctions lists' nationalities, with their real frequencies. */
  sanctionCountries: string[];
  /** Real PEP position titles (FtM Position names, Wikidata position labels). */
  positionTitles: string[];
  /** Which real files the tokens came from, for the generator's output. */
  sources: string[];
}

const ROOT = WATCHLISTS_DIR;

/** One current file set per source (the snapshots/ folders hold older copies; the EU file is fictional, not used). */
const INPUTS: Array<{ dir: string; accept: (name: string) => boolean }> = [
  { dir: "ofac", accept: (n) => /^(sdn|add|alt|sdn_comments)\.csv$/.test(n) },
  { dir: "un", accept: (n) => n === "consolidated.xml" },
  { dir: "uk", accept: (n) => n === "ConList.xlsx" },
  { dir: "wikidata/opensanctions_ftm_sa_wiki_peps", accept: (n) => n.endsWith(".ftm.json") },
];

const LATIN_WORD = /^[A-Za-z][A-Za-z'-]*[A-Za-z]$/;
const CYRILLIC_WORD = /^[\u0400-\u04FF][\u0400-\u04FF'-]*$/;
const ARABIC_WORD = /^[\u0600-\u06FF]+$/;
/** Honorifics and particles that would read oddly as a generated given name or surname. */
const NOT_A_NAME = new Set(["dr", "mr", "mrs", "ms", "haji", "hajji", "mullah", "maulvi", "sheikh", "shaykh", "general", "colonel", "the", "of", "and"]);

export function titleCase(token: string): string {
  return token
    .toLowerCase()
    .replace(/(^|[-'\s])([a-z])/g, (_m, sep: string, ch: string) => sep + ch.toUpperCase());
}

/** "LAST, First Middle" (OFAC) to "First Middle Last". */
function naturalOrder(name: string): string {
  const comma = name.indexOf(",");
  if (comma < 0) return name.trim();
  return `${name.slice(comma + 1).trim()} ${name.slice(0, comma).trim()}`.trim();
}

function realFiles(): Array<{ name: string; bytes: Uint8Array; group: string }> {
  const out: Array<{ name: string; bytes: Uint8Array; group: string }> = [];
  for (const input of INPUTS) {
    const dir = join(ROOT, input.dir);
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isFile() && input.accept(name)) out.push({ name, bytes: new Uint8Array(readFileSync(full)), group: input.dir });
    }
  }
  return out;
}

function addPersonTokens(tokens: NameTokens, e: WatchlistEntity): void {
  for (const n of e.names) {
    if (n.originalScript) {
      const words = n.name.split(/\s+/);
      if (words.every((w) => CYRILLIC_WORD.test(w)) && words.length >= 2) {
        tokens.cyrillicGiven.push(words[0]!);
        tokens.cyrillicSurname.push(words[words.length - 1]!);
      } else {
        for (const w of words) if (ARABIC_WORD.test(w) && w.length > 1) tokens.arabic.push(w);
      }
      continue;
    }
    const words = naturalOrder(n.name)
      .split(/\s+/)
      .filter((w) => LATIN_WORD.test(w) && !NOT_A_NAME.has(w.toLowerCase()));
    if (words.length < 2) continue;
    tokens.given.push(titleCase(words[0]!));
    tokens.surname.push(titleCase(words[words.length - 1]!));
    for (const w of words.slice(1, -1)) tokens.middle.push(titleCase(w));
  }
}

function addOrgTokens(tokens: NameTokens, e: WatchlistEntity): void {
  for (const n of e.names) {
    if (n.originalScript) continue;
    const words = n.name
      .toUpperCase()
      .split(/\s+/)
      .map((w) => w.replace(/[,;()"]/g, ""))
      .filter((w) => /^[A-Z0-9][A-Z0-9.&'-]*$/.test(w));
    if (words.length < 2) continue;
    const target = e.entityType === "vessel" ? tokens.vesselWords : tokens.orgWords;
    target.push(...words.slice(0, -1));
    if (e.entityType === "organisation") tokens.orgEnds.push(words[words.length - 1]!);
    else target.push(words[words.length - 1]!);
  }
}

/** Reads the real lists once and collects the token pools (a few seconds; the generator caches its output). */
export async function loadNameTokens(): Promise<NameTokens> {
  const tokens: NameTokens = {
    given: [],
    middle: [],
    surname: [],
    orgWords: [],
    orgEnds: [],
    vesselWords: [],
    cyrillicGiven: [],
    cyrillicSurname: [],
    arabic: [],
    cities: [],
    ofacProgrammes: [],
    ukRegimes: [],
    sanctionCountries: [],
    positionTitles: [],
    sources: [],
  };
  const files = realFiles();
  const groups = [...new Set(files.map((f) => f.group))];
  for (const group of groups) {
    const batch = files.filter((f) => f.group === group);
    tokens.sources.push(...batch.map((f) => `${group}/${f.name}`));
    const lists = await parseListFiles(batch.map(({ name, bytes }) => ({ name, bytes })));
    for (const list of lists) {
      for (const e of list.entities) {
        if (e.entityType === "person") addPersonTokens(tokens, e);
        else if (e.entityType !== "aircraft") addOrgTokens(tokens, e);
        for (const a of e.addresses) {
          const city = a.city?.trim();
          if (city && /^[A-Za-z][A-Za-z .'-]{2,30}$/.test(city) && !/\d/.test(city)) tokens.cities.push(titleCase(city));
        }
        if (list.source !== "WIKIDATA") for (const c of e.nationalities) if (countryName(c)) tokens.sanctionCountries.push(c);
        if (list.source === "OFAC") tokens.ofacProgrammes.push(...e.programmes);
        if (list.source === "UK") tokens.ukRegimes.push(...e.programmes);
        for (const p of e.pep?.positions ?? []) if (p.title && !p.title.startsWith("Position not specified")) tokens.positionTitles.push(p.title);
      }
    }
  }
  tokens.positionTitles.push(...wikidataPositionLabels());
  tokens.positionTitles = [...new Set(tokens.positionTitles)].sort();
  for (const [key, list] of Object.entries(tokens) as Array<[keyof NameTokens, string[]]>) {
    if (key !== "sources" && key !== "positionTitles" && list.length === 0) throw new Error(`no ${key} tokens found in the real lists under ${ROOT}`);
  }
  return tokens;
}

/** English labels of the position items (P39 targets) in the real wbgetentities responses. */
function wikidataPositionLabels(): string[] {
  const dir = join(ROOT, "wikidata/wikidata_wbgetentities_json");
  const labels: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, name), "utf8")) as { entities?: Record<string, { labels?: { en?: { value?: string } } }> };
    for (const item of Object.values(doc.entities ?? {})) {
      const label = item.labels?.en?.value;
      if (label && /\b(minister|president|member|chair|governor|ambassador|mayor|director|secretary|head|deputy|judge|prime)\b/i.test(label)) labels.push(label);
    }
  }
  return labels;
}

/** Country name as the importers read it back (the first name of the project's country table). */
export function countryLabel(iso2: string): string {
  const name = countryName(iso2);
  if (!name || countryToIso2(name) !== iso2) throw new Error(`no round-tripping country name for ${iso2}`);
  return name;
}
