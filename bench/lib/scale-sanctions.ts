import { join } from "node:path";
import {
  fullName,
  type GenDate,
  type GenPerson,
  genDate,
  genPerson,
  isoDay,
  monthAbbr,
  orgName,
  pad2,
  personAlias,
  personPools,
  Rng,
  seedFor,
  TextSink,
  vesselName,
} from "./scale-random";
import { countryLabel, type NameTokens } from "./scale-tokens";

/**
 * Writers for the sanctions lists at production scale, in the official layouts the importers read
 * (see ../shared/watchlists/README.md and eu/FORMAT.md). Each returns the files written and the
 * number of entities an importer must find in them.
 */
export interface WrittenSource {
  files: string[];
  entities: number;
  bytes: number;
  /** Line or record counts by kind, for the manifest (e.g. FtM Person / Occupancy / Family lines). */
  lines?: Record<string, number>;
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

// ---------------------------------------------------------------------------------------------
// OFAC SDN legacy CSV set: sdn.csv (12 columns), add.csv (6), alt.csv (5). No header, CRLF,
// `"`-quoted text, null is `-0- `, and each file ends with the DOS EOF byte 0x1A.

const NULL = "-0- ";
const q = (s: string | undefined) => (s ? `"${s.replace(/"/g, '""')}"` : NULL);

function ofacDob(d: GenDate): string {
  switch (d.precision) {
    case "day":
      return `DOB ${pad2(d.day)} ${monthAbbr(d.month)} ${d.year}`;
    case "year":
      return `DOB ${d.year}`;
    case "circa":
      return `DOB circa ${d.year}`;
    case "range":
      return `DOB ${d.year} to ${d.yearTo}`;
  }
}

const ID_KINDS = ["Passport", "National ID No.", "Identification Number", "Tax ID No."];
const VESSEL_TYPES = ["Crude Oil Tanker", "Oil Products Tanker", "General Cargo", "Bulk Carrier", "Container Ship", "Tug", "Chemical Tanker", "LPG Tanker"];
const AIRCRAFT_MODELS = ["IL76-TD", "A320-232", "B747-422", "An-124", "Tu-204-100", "A340-313", "B737-800"];
const TAIL_PREFIXES = ["EP-", "RA-", "UP-", "YK-", "4L-", "UR-", "YA-"];

export function writeOfacCsvSet(dir: string, count: number, tokens: NameTokens, seed: number): WrittenSource {
  const rng = new Rng(seedFor(seed, "ofac"));
  const pools = personPools(tokens);
  const sdn = new TextSink(join(dir, "sdn.csv"));
  const add = new TextSink(join(dir, "add.csv"));
  const alt = new TextSink(join(dir, "alt.csv"));
  let ent = 52_000;
  let altNum = 90_000;
  let addNum = 70_000;
  const recent: string[] = [];
  for (let i = 0; i < count; i++) {
    ent += 1 + rng.int(3);
    const programs = [rng.pick(tokens.ofacProgrammes)];
    if (rng.chance(0.15)) programs.push(rng.pick(tokens.ofacProgrammes));
    const program = q([...new Set(programs)].join("] ["));
    const roll = rng.next();
    const remarks: string[] = [];
    const aliases: Array<[string, string]> = [];
    let fields: string[];
    let country: string;
    if (roll < 0.48) {
      const p = genPerson(rng, tokens, pools, tokens.sanctionCountries);
      country = p.nationality;
      const name = `${p.surname.toUpperCase()}, ${p.middle ? `${p.given} ${p.middle}` : p.given}`;
      remarks.push(ofacDob(p.dob));
      if (rng.chance(0.2)) remarks.push(`alt. ${ofacDob(genDate(rng, p.dob.year - 2, p.dob.year + 2, 0))}`);
      remarks.push(`POB ${p.birthCity}, ${countryLabel(p.nationality)}`);
      remarks.push(`nationality ${countryLabel(p.nationality)}`);
      if (p.secondNationality) remarks.push(`citizen ${countryLabel(p.secondNationality)}`);
      remarks.push(`Gender ${p.gender === "male" ? "Male" : "Female"}`);
      if (rng.chance(0.45)) remarks.push(`${rng.pick(ID_KINDS)} ${rng.letters(1)}${rng.digits(7)} (${countryLabel(p.nationality)})`);
      if (rng.chance(0.3)) remarks.push(`a.k.a. '${`ABU ${rng.pick(pools.given)}`.toUpperCase()}'`);
      for (let a = rng.int(4); a > 0; a--) {
        const v = personAlias(rng, p, pools);
        aliases.push([rng.chance(0.94) ? "aka" : "fka", `${v.surname.toUpperCase()}, ${v.given}`]);
      }
      const title = rng.chance(0.12) ? q(`Director of ${orgName(rng, tokens)}`) : NULL;
      fields = [name, "individual", program, title, NULL, NULL, NULL, NULL, NULL, NULL];
    } else if (roll < 0.92) {
      country = rng.pick(tokens.sanctionCountries);
      const name = orgName(rng, tokens);
      if (rng.chance(0.3)) remarks.push(`Organization Established Date ${pad2(rng.between(1, 28))} ${monthAbbr(rng.between(1, 12))} ${rng.between(1970, 2022)}`);
      if (rng.chance(0.5)) remarks.push(`Registration Number ${rng.digits(9)} (${countryLabel(country)})`);
      if (rng.chance(0.15)) remarks.push(`Website www.${name.split(" ")[0]!.toLowerCase().replace(/[^a-z0-9]/g, "")}.com`);
      for (let a = rng.int(3); a > 0; a--) aliases.push([rng.chance(0.8) ? "aka" : rng.chance(0.9) ? "fka" : "nka", orgName(rng, tokens)]);
      if (rng.chance(0.1)) aliases.push(["aka", name.split(" ").map((w) => w[0]).join("")]);
      fields = [name, "-0-", program, NULL, NULL, NULL, NULL, NULL, NULL, NULL];
    } else if (roll < 0.975) {
      country = rng.pick(tokens.sanctionCountries);
      const name = vesselName(rng, tokens);
      remarks.push(`Vessel Registration Identification IMO ${rng.digits(7)}`);
      if (rng.chance(0.5)) remarks.push(`MMSI ${rng.digits(9)}`);
      if (rng.chance(0.4)) aliases.push(["fka", vesselName(rng, tokens)]);
      const tonnage = rng.chance(0.5) ? q(String(rng.between(1_000, 150_000))) : NULL;
      fields = [name, "vessel", program, NULL, q(`${rng.letters(2)}${rng.digits(4)}`), q(rng.pick(VESSEL_TYPES)), tonnage, q(String(rng.between(500, 90_000))), q(countryLabel(country)), q(orgName(rng, tokens))];
    } else {
      country = rng.pick(tokens.sanctionCountries);
      const name = `${rng.pick(TAIL_PREFIXES)}${rng.letters(3)}`;
      remarks.push(`Aircraft Construction Number (also called L/N or S/N or F/N) ${rng.digits(4)}`);
      remarks.push(`Aircraft Manufacture Date ${rng.between(1975, 2015)}`);
      remarks.push(`Aircraft Model ${rng.pick(AIRCRAFT_MODELS)}`);
      remarks.push(`Aircraft Manufacturer's Serial Number (MSN) ${rng.digits(10)}`);
      fields = [name, "aircraft", program, NULL, NULL, NULL, NULL, NULL, NULL, NULL];
    }
    if (recent.length > 0 && rng.chance(0.3)) remarks.push(`Linked To: ${rng.pick(recent)}`);
    const remarkText = remarks.length > 0 ? `${remarks.join("; ")}.` : "";
    const [name, type, ...rest] = fields;
    const typeField = type === "-0-" ? NULL : q(type);
    sdn.write(`${ent},${q(name)},${typeField},${rest.join(",")},${remarkText ? q(remarkText) : NULL}\r\n`);
    if (type === "-0-" || type === "individual") recent[recent.length < 200 ? recent.length : rng.int(200)] = (name ?? "").toUpperCase();
    for (const [kind, aliasName] of aliases) alt.write(`${ent},${altNum++},${q(kind)},${q(aliasName)},${NULL}\r\n`);
    const addresses = rng.chance(0.2) ? 2 : 1;
    for (let a = 0; a < addresses; a++) {
      const street = rng.chance(0.35) ? `${rng.between(1, 400)} ${rng.pick(tokens.orgWords)} Street` : undefined;
      const city = rng.chance(0.8) ? rng.pick(tokens.cities) : undefined;
      add.write(`${ent},${addNum++},${q(street)},${q(city)},${q(countryLabel(country))},${NULL}\r\n`);
    }
  }
  let bytes = 0;
  for (const sink of [sdn, add, alt]) {
    sink.write("\x1a");
    sink.close();
    bytes += sink.bytes;
  }
  return { files: ["sdn.csv", "add.csv", "alt.csv"], entities: count, bytes, lines: { "sdn.csv": count, "alt.csv": altNum - 90_000, "add.csv": addNum - 70_000 } };
}

// ---------------------------------------------------------------------------------------------
// EU Financial Sanctions File, XML 1.1 (eu/FORMAT.md): one <sanctionEntity> per subject.

const EU_PROGRAMMES = ["RUS", "RUS", "RUS", "UKR", "UKR", "BLR", "SYR", "IRN", "PRK", "LBY", "TAQA", "IRQ", "MLI", "SDN", "VEN", "ZWE", "MMR", "COD", "CAF", "YEM", "SOM", "GUI", "HRV", "CYB", "TERR", "CHEM"];
const EU_FUNCTIONS = ["Member of the State Duma", "Deputy Minister of Defence", "Chief Executive Officer", "Commander of a military unit", "Governor", "Businessperson", "Member of the Federation Council", "Head of a regional administration"];

function euRegulation(rng: Rng, programme: string, date: string, id: number): { open: string; summary: string } {
  const year = date.slice(0, 4);
  const number = `${year}/${rng.between(100, 2999)}`;
  const url = `https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:3${year}${rng.chance(0.6) ? "R" : "D"}${rng.digits(4)}`;
  const title = `${number} (OJ L ${rng.between(1, 400)})`;
  return {
    open: `    <regulation regulationType="regulation" organisationType="council" publicationDate="${date}" entryIntoForceDate="${date}" numberTitle="${title}" programme="${programme}" logicalId="${id}">\n      <publicationUrl>${url}</publicationUrl>\n    </regulation>\n`,
    summary: `<regulationSummary regulationType="regulation" publicationDate="${date}" numberTitle="${title}" publicationUrl="${url}"/>`,
  };
}

function euBirth(d: GenDate, city: string, iso: string, id: number): string {
  const common = `calendarType="GREGORIAN" city="${xml(city)}" zipCode="" region="" place="" countryIso2Code="${iso}" countryDescription="${xml(countryLabel(iso).toUpperCase())}" regulationLanguage="en" logicalId="${id}"`;
  switch (d.precision) {
    case "day":
      return `<birthdate circa="false" ${common} birthdate="${isoDay(d)}" dayOfMonth="${d.day}" monthOfYear="${d.month}" year="${d.year}"`;
    case "year":
      return `<birthdate circa="false" ${common} birthdate="" dayOfMonth="" monthOfYear="" year="${d.year}"`;
    case "circa":
      return `<birthdate circa="true" ${common} birthdate="" dayOfMonth="" monthOfYear="" year="${d.year}"`;
    case "range":
      return `<birthdate circa="false" ${common} birthdate="" dayOfMonth="" monthOfYear="" year="" yearRangeFrom="${d.year}" yearRangeTo="${d.yearTo}"`;
  }
}

export function writeEuXml(dir: string, count: number, tokens: NameTokens, seed: number): WrittenSource {
  const rng = new Rng(seedFor(seed, "eu"));
  const pools = personPools(tokens);
  const sink = new TextSink(join(dir, "20250801-FULL-1_1(xsd).xml"));
  sink.write('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n');
  sink.write('<export xmlns="http://eu.europa.ec/fpi/fsd/export" generationDate="2025-08-01T18:02:11.123+02:00" globalFileId="171234">\n');
  let logical = 100_000;
  let sub = 2_000_000;
  for (let i = 0; i < count; i++) {
    logical += 1 + rng.int(20);
    const programme = rng.pick(EU_PROGRAMMES);
    const designated = isoDay(genDate(rng, 2001, 2025, 0));
    const regulation = euRegulation(rng, programme, designated, ++sub);
    const un = rng.chance(0.15) ? `${rng.pick(["QDi", "TAi", "KPi", "IQi", "LYi"])}.${rng.between(1, 450)}` : "";
    const isPerson = rng.chance(0.72);
    const out: string[] = [];
    out.push(`  <sanctionEntity designationDetails="" unitedNationId="${un}" euReferenceNumber="EU.${rng.between(1, 9999)}.${rng.between(1, 99)}" logicalId="${logical}" designationDate="${designated}">\n`);
    if (rng.chance(0.35)) {
      const remark = rng.chance(0.05) ? "Reportedly deceased in 2021." : `Associated with ${orgName(rng, tokens)}.`;
      out.push(`    <remark>${xml(remark)}</remark>\n`);
    }
    out.push(regulation.open);
    if (isPerson) {
      const p = genPerson(rng, tokens, pools, tokens.sanctionCountries);
      const g = p.gender === "male" ? "M" : "F";
      const fn = rng.chance(0.5) ? xml(rng.pick(EU_FUNCTIONS)) : "";
      const alias = (first: string, middle: string, last: string, lang: string, strong: boolean) =>
        `    <nameAlias firstName="${xml(first)}" middleName="${xml(middle)}" lastName="${xml(last)}" wholeName="${xml([first, middle, last].filter(Boolean).join(" "))}" function="${fn}" gender="${g}" title="" nameLanguage="${lang}" strong="${strong}" regulationLanguage="en" logicalId="${++sub}">\n      ${regulation.summary}\n    </nameAlias>\n`;
      out.push(`    <subjectType code="person" classificationCode="P"/>\n`);
      out.push(alias(p.given, p.middle ?? "", p.surname, "", true));
      for (let a = 1 + rng.int(3); a > 0; a--) {
        const v = personAlias(rng, p, pools);
        out.push(alias(v.given, "", v.surname, "", rng.chance(0.85)));
      }
      if (p.cyrillic) {
        const [cf, cl] = p.cyrillic.split(" ");
        out.push(alias(cf ?? "", "", cl ?? "", "RU", true));
      } else if (p.arabic) out.push(alias("", "", p.arabic, "AR", true));
      out.push(`    <citizenship region="" countryIso2Code="${p.nationality}" countryDescription="${xml(countryLabel(p.nationality).toUpperCase())}" regulationLanguage="en" logicalId="${++sub}">\n      ${regulation.summary}\n    </citizenship>\n`);
      out.push(`    ${euBirth(p.dob, p.birthCity, p.nationality, ++sub)}>\n      ${regulation.summary}\n    </birthdate>\n`);
      if (rng.chance(0.15)) out.push(`    ${euBirth(genDate(rng, p.dob.year - 2, p.dob.year + 2, 0), p.birthCity, p.nationality, ++sub)}/>\n`);
      if (rng.chance(0.4)) {
        out.push(`    <identification diplomatic="false" knownExpired="false" knownFalse="false" reportedLost="false" revokedByIssuer="false" issuedBy="" latinNumber="" nameOnDocument="" number="${rng.digits(9)}" region="" countryIso2Code="${p.nationality}" countryDescription="${xml(countryLabel(p.nationality).toUpperCase())}" identificationTypeCode="passport" identificationTypeDescription="National passport" regulationLanguage="en" logicalId="${++sub}"/>\n`);
      }
    } else {
      const name = orgName(rng, tokens);
      const country = rng.pick(tokens.sanctionCountries);
      const alias = (whole: string, lang: string, strong: boolean) =>
        `    <nameAlias firstName="" middleName="" lastName="" wholeName="${xml(whole)}" function="" gender="" title="" nameLanguage="${lang}" strong="${strong}" regulationLanguage="en" logicalId="${++sub}">\n      ${regulation.summary}\n    </nameAlias>\n`;
      out.push(`    <subjectType code="enterprise" classificationCode="E"/>\n`);
      out.push(alias(name, "", true));
      for (let a = 1 + rng.int(2); a > 0; a--) out.push(alias(orgName(rng, tokens), "", true));
      if (rng.chance(0.3)) out.push(alias(`ООО ${rng.pick(tokens.cyrillicSurname)}`, "RU", true));
      if (rng.chance(0.2)) out.push(alias(name.split(" ").map((w) => w[0]).join(""), "", false));
      if (rng.chance(0.6)) {
        out.push(`    <identification diplomatic="false" knownExpired="false" knownFalse="false" reportedLost="false" revokedByIssuer="false" issuedBy="" latinNumber="" nameOnDocument="" number="${rng.digits(13)}" region="" countryIso2Code="${country}" countryDescription="${xml(countryLabel(country).toUpperCase())}" identificationTypeCode="regnumber" identificationTypeDescription="Registration Number" regulationLanguage="en" logicalId="${++sub}"/>\n`);
      }
      out.push(`    <address city="${xml(rng.pick(tokens.cities))}" street="${rng.between(1, 200)} ${xml(rng.pick(tokens.orgWords))} Street" poBox="" zipCode="${rng.digits(6)}" region="" place="" asAtListingTime="false" countryIso2Code="${country}" countryDescription="${xml(countryLabel(country).toUpperCase())}" regulationLanguage="en" logicalId="${++sub}"/>\n`);
    }
    out.push("  </sanctionEntity>\n");
    sink.write(out.join(""));
  }
  sink.write("</export>\n");
  sink.close();
  return { files: ["20250801-FULL-1_1(xsd).xml"], entities: count, bytes: sink.bytes };
}

// ---------------------------------------------------------------------------------------------
// OFSI Consolidated List CSV: row 1 "Last Updated", row 2 the 36-column header, one row per name
// variant, grouped by Group ID.

const OFSI_HEADER = [
  "Name 6", "Name 1", "Name 2", "Name 3", "Name 4", "Name 5", "Title", "Name Non-Latin Script", "Non-Latin Script Type",
  "Non-Latin Script Language", "DOB", "Town of Birth", "Country of Birth", "Nationality", "Passport Number", "Passport Details",
  "National Identification Number", "National Identification Details", "Position", "Address 1", "Address 2", "Address 3",
  "Address 4", "Address 5", "Address 6", "Post/Zip Code", "Country", "Other Information", "Group Type", "Alias Type",
  "Alias Quality", "Regime", "Listed On", "UK Sanctions List Date Designated", "Last Updated", "Group ID",
];

const csvField = (v: string | undefined) => (!v ? "" : /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const ukDate = (d: { year: number; month: number; day: number }) => `${pad2(d.day)}/${pad2(d.month)}/${d.year}`;

function ukDob(d: GenDate): string {
  return d.precision === "day" ? ukDate(d) : `00/00/${d.year}`;
}

function regimeRef(regime: string): string {
  const words = regime.replace(/[^A-Za-z ]/g, "").toUpperCase().split(/\s+/).filter(Boolean);
  return (words.length === 1 ? (words[0] ?? "UKS").slice(0, 3) : words.map((w) => w[0]).join("").slice(0, 3)).padEnd(3, "X");
}

const UK_REASONS = [
  "is or has been involved in obtaining a benefit from or supporting the Government of",
  "is a member of, or associated with, a designated group operating in",
  "is or has been responsible for activity that undermines stability in",
  "has been involved in the supply of goods and technology to",
];

export function writeUkConListCsv(dir: string, count: number, tokens: NameTokens, seed: number): WrittenSource {
  const rng = new Rng(seedFor(seed, "uk"));
  const pools = personPools(tokens);
  const sink = new TextSink(join(dir, "ConList.csv"));
  sink.write("Last Updated,01/08/2025\r\n");
  sink.write(`${OFSI_HEADER.join(",")}\r\n`);
  let group = 16_000;
  let rows = 0;
  for (let i = 0; i < count; i++) {
    group += 1 + rng.int(3);
    const regime = rng.pick(tokens.ukRegimes);
    const listed = genDate(rng, 2001, 2025, 0);
    const updated = genDate(rng, listed.year, 2025, 0);
    const roll = rng.next();
    const type = roll < 0.7 ? "Individual" : roll < 0.92 ? "Entity" : "Ship";
    const ref = `${regimeRef(regime)}${String(rng.between(1, 2999)).padStart(4, "0")}`;
    const base: Record<string, string> = {
      "Group Type": type,
      Regime: regime,
      "Listed On": ukDate(listed),
      "UK Sanctions List Date Designated": ukDate(listed),
      "Last Updated": ukDate(updated),
      "Group ID": String(group),
    };
    const names: Array<{ cells: Record<string, string>; alias: string; quality?: string }> = [];
    if (type === "Individual") {
      const p = genPerson(rng, tokens, pools, tokens.sanctionCountries);
      base.DOB = ukDob(p.dob);
      base["Town of Birth"] = p.birthCity;
      base["Country of Birth"] = countryLabel(p.nationality);
      base.Nationality = p.secondNationality ? `(1) ${countryLabel(p.nationality)} (2) ${countryLabel(p.secondNationality)}` : countryLabel(p.nationality);
      if (rng.chance(0.25)) {
        base["Passport Number"] = `${rng.letters(2)}${rng.digits(7)}`;
        base["Passport Details"] = `${countryLabel(p.nationality)} passport`;
      }
      if (rng.chance(0.3)) base.Position = `Director of ${orgName(rng, tokens)}`;
      base.Country = countryLabel(p.nationality);
      base["Address 1"] = rng.pick(tokens.cities);
      base["Other Information"] = `(UK Sanctions List Ref):${ref}. (UK Statement of Reasons):${fullName(p)} ${rng.pick(UK_REASONS)} ${countryLabel(p.nationality)}. (Gender):${p.gender === "male" ? "Male" : "Female"}`;
      const person = (first: string, middle: string | undefined, last: string) => ({ "Name 1": first, "Name 2": middle ?? "", "Name 6": last.toUpperCase() });
      const primary = person(p.given, p.middle, p.surname);
      if (p.cyrillic) Object.assign(primary, { "Name Non-Latin Script": p.cyrillic, "Non-Latin Script Type": "Cyrillic", "Non-Latin Script Language": "Russian" });
      else if (p.arabic) Object.assign(primary, { "Name Non-Latin Script": p.arabic, "Non-Latin Script Type": "Arabic", "Non-Latin Script Language": "Arabic" });
      names.push({ cells: primary, alias: "Primary name" });
      for (let v = rng.int(3); v > 0; v--) {
        const alt = personAlias(rng, p, pools);
        names.push({ cells: person(alt.given, undefined, alt.surname), alias: "Primary name variation" });
      }
      for (let a = rng.int(4); a > 0; a--) {
        const alt = personAlias(rng, p, pools);
        names.push({ cells: person(alt.given, undefined, alt.surname), alias: "AKA", quality: rng.chance(0.7) ? "Good quality" : "Low quality" });
      }
      if (rng.chance(0.02)) names.push({ cells: person(p.given, undefined, p.altSurname), alias: "FKA" });
    } else {
      const country = rng.pick(tokens.sanctionCountries);
      const name = type === "Ship" ? vesselName(rng, tokens) : orgName(rng, tokens);
      base.Country = countryLabel(country);
      base["Address 1"] = `${rng.between(1, 300)} ${rng.pick(tokens.orgWords)} Street`;
      base["Address 2"] = rng.pick(tokens.cities);
      base["Post/Zip Code"] = rng.digits(6);
      const imo = type === "Ship" ? ` IMO number: ${rng.digits(7)}.` : "";
      base["Other Information"] = `(UK Sanctions List Ref):${ref}.${imo} (UK Statement of Reasons):${name} ${rng.pick(UK_REASONS)} ${countryLabel(country)}.`;
      names.push({ cells: { "Name 6": name }, alias: "Primary name" });
      for (let a = rng.int(4); a > 0; a--) {
        names.push({ cells: { "Name 6": type === "Ship" ? vesselName(rng, tokens) : orgName(rng, tokens) }, alias: "AKA", quality: "Good quality" });
      }
    }
    for (const n of names) {
      const row: Record<string, string> = { ...base, ...n.cells, "Alias Type": n.alias };
      if (n.quality) row["Alias Quality"] = n.quality;
      sink.write(`${OFSI_HEADER.map((h) => csvField(row[h])).join(",")}\r\n`);
      rows++;
    }
  }
  sink.close();
  return { files: ["ConList.csv"], entities: count, bytes: sink.bytes, lines: { "name rows": rows } };
}

// ---------------------------------------------------------------------------------------------
// UN Security Council consolidated list XML: CONSOLIDATED_LIST / INDIVIDUALS / INDIVIDUAL and
// ENTITIES / ENTITY, with the empty elements the real file carries.

const UN_LISTS: Array<[string, string, number]> = [
  ["Al-Qaida", "QD", 34], ["DPRK", "KP", 15], ["Taliban", "TA", 14], ["Iran", "IR", 12], ["Iraq", "IQ", 8], ["DRC", "CD", 5],
  ["Libya", "LY", 3], ["Somalia", "SO", 2], ["CAR", "CF", 2], ["Haiti", "HT", 1], ["Yemen", "YE", 1], ["Sudan", "SD", 1], ["SouthSudan", "SS", 1],
];
const UN_WEIGHTED = UN_LISTS.flatMap(([name, prefix, weight]) => Array.from({ length: weight }, () => ({ name, prefix })));

function unDob(d: GenDate): string {
  switch (d.precision) {
    case "day":
      return `        <TYPE_OF_DATE>EXACT</TYPE_OF_DATE>\n        <DATE>${isoDay(d)}</DATE>\n`;
    case "year":
      return `        <TYPE_OF_DATE>EXACT</TYPE_OF_DATE>\n        <YEAR>${d.year}</YEAR>\n`;
    case "circa":
      return `        <TYPE_OF_DATE>APPROXIMATELY</TYPE_OF_DATE>\n        <YEAR>${d.year}</YEAR>\n`;
    case "range":
      return `        <TYPE_OF_DATE>BETWEEN</TYPE_OF_DATE>\n        <FROM_YEAR>${d.year}</FROM_YEAR>\n        <TO_YEAR>${d.yearTo}</TO_YEAR>\n`;
  }
}

export function writeUnXml(dir: string, count: number, tokens: NameTokens, seed: number): WrittenSource {
  const rng = new Rng(seedFor(seed, "un"));
  const pools = personPools(tokens);
  const individuals: string[] = [];
  const entities: string[] = [];
  const counters = new Map<string, number>();
  let dataId = 7_100_000;
  for (let i = 0; i < count; i++) {
    const list = rng.pick(UN_WEIGHTED);
    const isPerson = rng.chance(0.73);
    const key = `${list.prefix}${isPerson ? "i" : "e"}`;
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    const ref = `${key}.${String(n).padStart(3, "0")}`;
    const listed = isoDay(genDate(rng, 2001, 2025, 0));
    dataId += 1 + rng.int(5);
    const head = `      <DATAID>${dataId}</DATAID>\n      <VERSIONNUM>1</VERSIONNUM>\n`;
    const tail = `      <SORT_KEY/>\n      <SORT_KEY_LAST_MOD/>\n`;
    const common = `      <UN_LIST_TYPE>${list.name}</UN_LIST_TYPE>\n      <REFERENCE_NUMBER>${ref}</REFERENCE_NUMBER>\n      <LISTED_ON>${listed}</LISTED_ON>\n`;
    if (isPerson) {
      const p = genPerson(rng, tokens, pools, tokens.sanctionCountries);
      const parts = [p.given, p.middle, p.surname].filter((s): s is string => !!s).map((s) => xml(s.toUpperCase()));
      const out: string[] = [head];
      ["FIRST_NAME", "SECOND_NAME", "THIRD_NAME"].forEach((tag, k) => {
        if (parts[k]) out.push(`      <${tag}>${parts[k]}</${tag}>\n`);
      });
      out.push(common, `      <GENDER>${p.gender === "male" ? "Male" : "Female"}</GENDER>\n`);
      out.push(`      <COMMENTS1>${rng.chance(0.04) ? "Reportedly deceased in 2019." : `Associated with ${xml(orgName(rng, tokens))}.`}</COMMENTS1>\n`);
      if (rng.chance(0.3)) out.push(`      <DESIGNATION>\n        <VALUE>${xml(`Commander of ${orgName(rng, tokens)}`)}</VALUE>\n      </DESIGNATION>\n`);
      out.push(`      <NATIONALITY>\n        <VALUE>${xml(countryLabel(p.nationality))}</VALUE>\n      </NATIONALITY>\n`);
      out.push("      <LIST_TYPE>\n        <VALUE>UN List</VALUE>\n      </LIST_TYPE>\n");
      out.push(`      <LAST_DAY_UPDATED>\n        <VALUE>${listed}</VALUE>\n      </LAST_DAY_UPDATED>\n`);
      const script = p.arabic ?? p.cyrillic;
      if (script) out.push(`      <NAME_ORIGINAL_SCRIPT>${xml(script)}</NAME_ORIGINAL_SCRIPT>\n`);
      const aliases = rng.int(6);
      if (aliases === 0) out.push("      <INDIVIDUAL_ALIAS>\n        <QUALITY/>\n        <ALIAS_NAME/>\n      </INDIVIDUAL_ALIAS>\n");
      for (let a = 0; a < aliases; a++) {
        const good = rng.chance(0.7);
        const v = personAlias(rng, p, pools);
        const name = good ? `${v.given} ${v.surname}` : `Abu ${rng.pick(pools.given)}`;
        out.push(`      <INDIVIDUAL_ALIAS>\n        <QUALITY>${good ? "Good" : "Low"}</QUALITY>\n        <ALIAS_NAME>${xml(name)}</ALIAS_NAME>\n      </INDIVIDUAL_ALIAS>\n`);
      }
      out.push(`      <INDIVIDUAL_ADDRESS>\n        <CITY>${xml(rng.pick(tokens.cities))}</CITY>\n        <COUNTRY>${xml(countryLabel(p.nationality))}</COUNTRY>\n      </INDIVIDUAL_ADDRESS>\n`);
      out.push(`      <INDIVIDUAL_DATE_OF_BIRTH>\n${unDob(p.dob)}      </INDIVIDUAL_DATE_OF_BIRTH>\n`);
      out.push(`      <INDIVIDUAL_PLACE_OF_BIRTH>\n        <CITY>${xml(p.birthCity)}</CITY>\n        <COUNTRY>${xml(countryLabel(p.nationality))}</COUNTRY>\n      </INDIVIDUAL_PLACE_OF_BIRTH>\n`);
      if (rng.chance(0.35)) {
        out.push(`      <INDIVIDUAL_DOCUMENT>\n        <TYPE_OF_DOCUMENT>Passport</TYPE_OF_DOCUMENT>\n        <NUMBER>${rng.letters(1)}${rng.digits(7)}</NUMBER>\n        <ISSUING_COUNTRY>${xml(countryLabel(p.nationality))}</ISSUING_COUNTRY>\n      </INDIVIDUAL_DOCUMENT>\n`);
      } else out.push("      <INDIVIDUAL_DOCUMENT/>\n");
      out.push(tail);
      individuals.push(`    <INDIVIDUAL>\n${out.join("")}    </INDIVIDUAL>\n`);
    } else {
      const country = rng.pick(tokens.sanctionCountries);
      const out: string[] = [head, `      <FIRST_NAME>${xml(orgName(rng, tokens))}</FIRST_NAME>\n`, common];
      out.push(`      <COMMENTS1>${xml(`Linked to ${orgName(rng, tokens)}.`)}</COMMENTS1>\n`);
      out.push("      <LIST_TYPE>\n        <VALUE>UN List</VALUE>\n      </LIST_TYPE>\n");
      out.push(`      <LAST_DAY_UPDATED>\n        <VALUE>${listed}</VALUE>\n      </LAST_DAY_UPDATED>\n`);
      for (let a = rng.int(5); a > 0; a--) {
        out.push(`      <ENTITY_ALIAS>\n        <QUALITY>${rng.chance(0.9) ? "a.k.a." : "f.k.a."}</QUALITY>\n        <ALIAS_NAME>${xml(orgName(rng, tokens))}</ALIAS_NAME>\n      </ENTITY_ALIAS>\n`);
      }
      out.push(`      <ENTITY_ADDRESS>\n        <CITY>${xml(rng.pick(tokens.cities))}</CITY>\n        <COUNTRY>${xml(countryLabel(country))}</COUNTRY>\n      </ENTITY_ADDRESS>\n`);
      out.push(tail);
      entities.push(`    <ENTITY>\n${out.join("")}    </ENTITY>\n`);
    }
  }
  const sink = new TextSink(join(dir, "consolidated.xml"));
  sink.write('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n');
  sink.write('<CONSOLIDATED_LIST xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://www.un.org/sc/resources/sc-sanctions.xsd" dateGenerated="2025-08-01T00:00:09.554Z">\n');
  sink.write("  <INDIVIDUALS>\n");
  for (const s of individuals) sink.write(s);
  sink.write("  </INDIVIDUALS>\n  <ENTITIES>\n");
  for (const s of entities) sink.write(s);
  sink.write("  </ENTITIES>\n</CONSOLIDATED_LIST>\n");
  sink.close();
  return { files: ["consolidated.xml"], entities: count, bytes: sink.bytes, lines: { INDIVIDUAL: individuals.length, ENTITY: entities.length } };
}

export type { GenPerson };
