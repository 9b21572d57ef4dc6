import { join } from "node:path";
import { listCountries } from "../../src/lib/countries";
import { COUNTRY_QIDS } from "../../src/watchlists/importers/wikidata/country-qids";
import { type GenDate, type GenPerson, fullName, genDate, genPerson, isoDay, personAlias, personPools, Rng, seedFor, TextSink } from "./scale-random";
import type { WrittenSource } from "./scale-sanctions";
import { countryLabel, type NameTokens } from "./scale-tokens";

/**
 * Wikidata-derived PEPs at production scale (0.5–1.5 million persons), written as FollowTheMoney
 * line-JSON the way an OpenSanctions-style Wikidata PEP crawler exports it: Position, Person,
 * Occupancy (holder -> post) and Family (person -> relative) lines. Most persons hold one to
 * three positions; about 8% are listed only as relatives of a PEP (role.rca); a few PEPs are
 * married to each other. Optionally the same persons are also written as Wikidata entity-JSON
 * dump lines (`[`, one entity per line with a trailing comma, `]`), with the position and
 * country items they reference, so both PEP importers can be measured on identical data.
 */
export interface PepWriteOptions {
  persons: number;
  /** Also write the Wikidata entity-JSON dump of the same persons. */
  wikidataDump: boolean;
}

export interface WrittenPeps {
  ftm: WrittenSource;
  wikidata?: WrittenSource;
}

interface GenPosition {
  id: string;
  title: string;
  /** ISO 3166-1 alpha-2, absent for international bodies. */
  country?: string;
  topics: string[];
}

const PORTFOLIOS = ["Finance", "Defence", "Foreign Affairs", "Interior", "Justice", "Health", "Energy", "Agriculture", "Education", "Transport", "Trade", "Economy", "Culture", "Labour"];
const NATIONAL: Array<[string, string[]]> = [
  ["Member of the Parliament of {C}", ["gov.legislative", "gov.national", "role.pep"]],
  ["Member of the Parliament of {C}", ["gov.legislative", "gov.national", "role.pep"]],
  ["Member of the Senate of {C}", ["gov.legislative", "gov.national", "role.pep"]],
  ["Minister of {P} of {C}", ["gov.executive", "gov.national", "role.pep"]],
  ["Deputy Minister of {P} of {C}", ["gov.executive", "gov.national", "role.pep"]],
  ["Ambassador of {C} to {C2}", ["role.diplo", "role.pep"]],
  ["Judge of the Supreme Court of {C}", ["gov.judicial", "role.pep"]],
  ["Governor of the Central Bank of {C}", ["gov.financial", "role.pep"]],
  ["Mayor of {CITY}", ["gov.muni", "role.pep"]],
  ["Member of the {CITY} City Council", ["gov.muni", "role.pep"]],
  ["Governor of {CITY} Province", ["gov.state", "role.pep"]],
  ["Chief of the General Staff of {C}", ["gov.security", "role.pep"]],
];
const INTERNATIONAL = [
  "Member of the European Parliament",
  "European Commissioner for {P}",
  "Judge of the International Court of Justice",
  "Executive Director of the International Monetary Fund",
  "Under-Secretary-General of the United Nations",
  "Judge of the European Court of Human Rights",
];
const RELATIONSHIPS: Array<[string, string]> = [
  ["spouse", "P26"],
  ["child", "P40"],
  ["sibling", "P3373"],
  ["parent", "P22"],
];
const POSITION_WORDS = /\b(minister|president|member|chair(?:man)?|governor|ambassador|mayor|director|secretary|head|deputy|judge|prime)\b/i;

/** Countries whose name round-trips through the importers' country table. */
function pepCountries(): string[] {
  const out: string[] = [];
  for (const c of listCountries()) {
    try {
      countryLabel(c.iso2);
      if (c.iso2.length === 2 && c.iso2 !== "XK" && c.iso2 !== "EU") out.push(c.iso2);
    } catch {
      // Not every table row has a name that maps back to the same code; skip those.
    }
  }
  return out;
}

function positions(rng: Rng, tokens: NameTokens, countries: readonly string[], count: number): GenPosition[] {
  const real = tokens.positionTitles.filter((t) => POSITION_WORDS.test(t) && !/\d/.test(t) && t.length < 90);
  const out: GenPosition[] = [];
  for (let k = 0; k < count; k++) {
    const id = `Q${120_000_000 + k * 7}`;
    const roll = rng.next();
    if (roll < 0.03) {
      out.push({ id, title: rng.pick(INTERNATIONAL).replace("{P}", rng.pick(PORTFOLIOS)), topics: ["gov.igo", "role.pep"] });
      continue;
    }
    const country = rng.pick(countries);
    if (roll < 0.06 && real.length > 0) {
      out.push({ id, title: rng.pick(real), country, topics: ["gov.national", "role.pep"] });
      continue;
    }
    const [template, topics] = rng.pick(NATIONAL);
    const title = template
      .replace("{C2}", countryLabel(rng.pick(countries)))
      .replace("{C}", countryLabel(country))
      .replace("{P}", rng.pick(PORTFOLIOS))
      .replace("{CITY}", rng.pick(tokens.cities));
    out.push({ id, title, country, topics });
  }
  return out;
}

const FIRST_SEEN = "2023-06-12T09:14:03";
const LAST_SEEN = "2025-08-01T06:02:11";

function ftmLine(id: string, schema: string, caption: string, properties: Record<string, string[]>, target: boolean): string {
  return `${JSON.stringify({
    id,
    caption,
    schema,
    properties,
    referents: [],
    datasets: ["wd_peps"],
    first_seen: FIRST_SEEN,
    last_seen: LAST_SEEN,
    last_change: LAST_SEEN,
    target,
  })}\n`;
}

function ftmDate(d: GenDate): string {
  return d.precision === "day" ? isoDay(d) : String(d.year);
}

// --- Wikidata entity JSON -----------------------------------------------------------------------

const CALENDAR = "http://www.wikidata.org/entity/Q1985727";

function itemSnak(property: string, id: string) {
  return {
    snaktype: "value",
    property,
    datavalue: { value: { "entity-type": "item", "numeric-id": Number(id.slice(1)), id }, type: "wikibase-entityid" },
    datatype: "wikibase-item",
  };
}

function timeSnak(property: string, d: GenDate | string) {
  const [time, precision] =
    typeof d === "string" ? [`+${d}T00:00:00Z`, d.length === 10 ? 11 : 9] : d.precision === "day" ? [`+${isoDay(d)}T00:00:00Z`, 11] : [`+${d.year}-00-00T00:00:00Z`, 9];
  return {
    snaktype: "value",
    property,
    datavalue: { value: { time, timezone: 0, before: 0, after: 0, precision, calendarmodel: CALENDAR }, type: "time" },
    datatype: "time",
  };
}

type StatementFn = (owner: string, mainsnak: object, qualifiers?: Record<string, object[]>) => object;

/** Statement builder with GUID-like statement ids numbered from zero, so every run writes the same bytes. */
function statements(): StatementFn {
  let n = 0;
  return (owner, mainsnak, qualifiers) => {
    const id = `${owner}$${(++n).toString(16).padStart(8, "0")}-5E1F-4C2A-9B6D-000000000000`;
    return qualifiers ? { mainsnak, type: "statement", qualifiers, "qualifiers-order": Object.keys(qualifiers), id, rank: "normal" } : { mainsnak, type: "statement", id, rank: "normal" };
  };
}

const label = (value: string, language = "en") => ({ language, value });

function countryQids(countries: readonly string[]): Map<string, string> {
  const known = new Map(Object.entries(COUNTRY_QIDS).map(([qid, iso]) => [iso, qid]));
  const out = new Map<string, string>();
  for (const [k, iso] of countries.entries()) out.set(iso, known.get(iso) ?? `Q${119_000_000 + k}`);
  return out;
}

// -------------------------------------------------------------------------------------------------

export function writePeps(dir: string, options: PepWriteOptions, tokens: NameTokens, seed: number): WrittenPeps {
  const rng = new Rng(seedFor(seed, "peps"));
  const pools = personPools(tokens);
  const countries = pepCountries();
  const posList = positions(rng, tokens, countries, Math.max(100, Math.round(options.persons / 25)));
  const byCountry = new Map<string, GenPosition[]>();
  for (const p of posList) if (p.country) byCountry.set(p.country, [...(byCountry.get(p.country) ?? []), p]);

  const ftmName = "wd_peps.entities.ftm.json";
  const ftm = new TextSink(join(dir, ftmName));
  const dumpName = "wd_peps.wikidata-dump.json";
  const dump = options.wikidataDump ? new TextSink(join(dir, dumpName)) : undefined;
  const qids = countryQids(countries);
  const statement = statements();
  let firstDumpLine = true;
  const dumpLine = (entity: object) => {
    if (!dump) return;
    dump.write(firstDumpLine ? `[\n${JSON.stringify(entity)}` : `,\n${JSON.stringify(entity)}`);
    firstDumpLine = false;
  };

  for (const p of posList) {
    const props: Record<string, string[]> = { name: [p.title], topics: p.topics, wikidataId: [p.id] };
    if (p.country) props.country = [p.country.toLowerCase()];
    ftm.write(ftmLine(p.id, "Position", p.title, props, false));
    if (dump) {
      const claims: Record<string, object[]> = { P31: [statement(p.id, itemSnak("P31", "Q4164871"))] };
      if (p.country) claims.P17 = [statement(p.id, itemSnak("P17", qids.get(p.country) ?? "Q0"))];
      else claims.P361 = [statement(p.id, itemSnak("P361", "Q1065"))];
      dumpLine({ type: "item", id: p.id, labels: { en: label(p.title) }, descriptions: {}, aliases: {}, claims, sitelinks: {}, modified: "2025-07-30T10:00:00Z" });
    }
  }
  if (dump) {
    for (const iso of countries) {
      const id = qids.get(iso) ?? "Q0";
      dumpLine({
        type: "item",
        id,
        labels: { en: label(countryLabel(iso)) },
        claims: { P31: [statement(id, itemSnak("P31", "Q6256"))], P297: [statement(id, { snaktype: "value", property: "P297", datavalue: { value: iso, type: "string" }, datatype: "external-id" })] },
        sitelinks: {},
        modified: "2025-07-30T10:00:00Z",
      });
    }
  }

  let lastPep: { id: string; person: GenPerson } | undefined;
  let occupancies = 0;
  let families = 0;
  for (let i = 0; i < options.persons; i++) {
    const id = `Q${130_000_000 + i * 3}`;
    const isRelative = lastPep !== undefined && rng.chance(0.08);
    const home = rng.pick(countries);
    const p = genPerson(rng, tokens, pools, [home], { male: isRelative ? 0.4 : 0.72, fromYear: 1935, toYear: isRelative ? 2005 : 1995 });
    const name = fullName(p);
    const aliases: string[] = [];
    for (let a = rng.int(4); a > 0; a--) {
      const v = personAlias(rng, p, pools);
      aliases.push(`${v.given} ${v.surname}`);
    }
    if (p.cyrillic) aliases.push(p.cyrillic);
    else if (p.arabic) aliases.push(p.arabic);
    const dead = rng.chance(0.04) ? String(rng.between(Math.max(p.dob.year + 40, 1990), 2025)) : undefined;
    const props: Record<string, string[]> = { name: [name], firstName: [p.given], lastName: [p.surname] };
    if (aliases.length > 0) props.alias = aliases;
    if (rng.chance(0.92)) props.birthDate = [ftmDate(p.dob)];
    if (rng.chance(0.3)) props.birthPlace = [p.birthCity];
    if (dead) props.deathDate = [dead];
    props.gender = [p.gender];
    props.nationality = [home.toLowerCase()];
    if (p.secondNationality && rng.chance(0.5)) props.citizenship = [p.secondNationality.toLowerCase()];
    props.topics = [isRelative ? "role.rca" : "role.pep"];
    props.wikidataId = [id];
    ftm.write(ftmLine(id, "Person", name, props, true));

    const claims: Record<string, object[]> = {};
    if (dump) {
      claims.P31 = [statement(id, itemSnak("P31", "Q5"))];
      claims.P21 = [statement(id, itemSnak("P21", p.gender === "male" ? "Q6581097" : "Q6581072"))];
      claims.P27 = [statement(id, itemSnak("P27", qids.get(home) ?? "Q0"))];
      if (props.birthDate) claims.P569 = [statement(id, timeSnak("P569", p.dob))];
      if (dead) claims.P570 = [statement(id, timeSnak("P570", dead))];
    }
    if (isRelative && lastPep) {
      const [relationship, property] = rng.pick(RELATIONSHIPS);
      const famId = `${lastPep.id.toLowerCase()}-family-${rng.hex(40)}`;
      ftm.write(ftmLine(famId, "Family", "Family", { person: [lastPep.id], relative: [id], relationship: [relationship] }, false));
      families++;
      // The relative's own item points back at the PEP (P26 spouse is symmetric; P40 child becomes P22 parent, and so on).
      const back = property === "P40" ? "P22" : property === "P22" ? "P40" : property;
      if (dump) claims[back] = [statement(id, itemSnak(back, lastPep.id))];
    } else {
      const held = rng.chance(0.65) ? 1 : rng.chance(0.7) ? 2 : 3;
      const local = byCountry.get(home) ?? posList;
      const p39: object[] = [];
      for (let k = 0; k < held; k++) {
        const post = rng.chance(0.9) ? rng.pick(local) : rng.pick(posList);
        const start = genDate(rng, Math.max(p.dob.year + 25, 1960), 2024, 0.3);
        const ended = rng.chance(0.55);
        const end = ended ? genDate(rng, Math.min(start.year + 1, 2025), Math.min(start.year + 10, 2025), 0.3) : undefined;
        const occProps: Record<string, string[]> = { holder: [id], post: [post.id], startDate: [ftmDate(start)], status: [ended ? "ended" : "current"] };
        if (end) occProps.endDate = [ftmDate(end)];
        ftm.write(ftmLine(`${id.toLowerCase()}-occupancy-${rng.hex(40)}`, "Occupancy", "Occupancy", occProps, false));
        occupancies++;
        if (dump) {
          const qualifiers: Record<string, object[]> = { P580: [timeSnak("P580", start)] };
          if (end) qualifiers.P582 = [timeSnak("P582", end)];
          p39.push(statement(id, itemSnak("P39", post.id), qualifiers));
        }
      }
      if (dump) claims.P39 = p39;
      if (lastPep && rng.chance(0.015)) {
        ftm.write(ftmLine(`${id.toLowerCase()}-family-${rng.hex(40)}`, "Family", "Family", { person: [id], relative: [lastPep.id], relationship: ["spouse"] }, false));
        families++;
        if (dump) claims.P26 = [statement(id, itemSnak("P26", lastPep.id))];
      }
      lastPep = { id, person: p };
    }
    if (dump) {
      const labels: Record<string, { language: string; value: string }> = { en: label(name) };
      if (p.cyrillic) labels.ru = label(p.cyrillic, "ru");
      if (p.arabic) labels.ar = label(p.arabic, "ar");
      const wdAliases = aliases.filter((a) => a !== p.cyrillic && a !== p.arabic).map((a) => label(a));
      dumpLine({
        type: "item",
        id,
        labels,
        descriptions: { en: label(isRelative ? "relative of a politician" : `politician from ${countryLabel(home)}`) },
        aliases: wdAliases.length > 0 ? { en: wdAliases } : {},
        claims,
        sitelinks: {},
        modified: "2025-07-30T10:00:00Z",
      });
    }
  }
  ftm.close();
  const lines = { positions: posList.length, persons: options.persons, occupancies, families };
  const result: WrittenPeps = { ftm: { files: [ftmName], entities: options.persons, bytes: ftm.bytes, lines } };
  if (dump) {
    dump.write("\n]\n");
    dump.close();
    result.wikidata = { files: [dumpName], entities: options.persons, bytes: dump.bytes, lines: { positions: posList.length, countries: countries.length, persons: options.persons } };
  }
  return result;
}
