import { countryToIso2 } from "../../../lib/countries";
import type { EntityType, NameKind, WatchlistEntity } from "../../entity";
import {
  addAddress,
  addBirth,
  addIdentifier,
  addName,
  addNationality,
  addProgramme,
  dropEmpty,
  finishEntity,
  joinParts,
  newEntity,
} from "../common/build";
import { parsePartialDate } from "../common/dates";
import { clean, detectDeath, splitNumbered } from "../common/text";
import { type OfsiRecord, sheetDate } from "./parse";
import type { FcdoSummaryRecord } from "./parse-fcdo";

/**
 * Neither OFSI nor FCDO publishes a per-record page. The FCDO search service finds a record by
 * its UK Sanctions List Ref, which we carry in sourceRef.
 */
export const UK_VERIFY_URL = "https://search-uk-sanctions-list.service.gov.uk/";

const TYPES: Record<string, EntityType> = { individual: "person", entity: "organisation", ship: "vessel" };

const ALIAS_KINDS: Record<string, NameKind> = {
  "primary name": "primary",
  "primary name variation": "aka",
  aka: "aka",
  fka: "fka",
};

/** ISO 639-1 codes for the script languages OFSI names in words. */
const LANGUAGES: Record<string, string> = {
  arabic: "ar", russian: "ru", ukrainian: "uk", belarusian: "be", chinese: "zh", korean: "ko", japanese: "ja",
  persian: "fa", farsi: "fa", georgian: "ka", armenian: "hy", greek: "el", hebrew: "he", burmese: "my",
  thai: "th", pashto: "ps", urdu: "ur", serbian: "sr", macedonian: "mk", bulgarian: "bg", kazakh: "kk",
};

function ofsiName(row: Record<string, string>): string {
  return joinParts(["Name 1", "Name 2", "Name 3", "Name 4", "Name 5", "Name 6"].map((k) => row[k]), " ");
}

function addDocuments(entity: WatchlistEntity, type: string, label: string, numbers?: string, details?: string): void {
  const nums = splitNumbered(numbers ?? "");
  const notes = splitNumbered(details ?? "");
  nums.forEach((number, i) => {
    const note = nums.length === notes.length ? notes[i] : notes.join("; ");
    const country = countryToIso2(note) ?? countryToIso2(note?.split(/[ ,]/)[0]);
    addIdentifier(entity, dropEmpty({ type, label, number, country, note }));
  });
}

export function mapOfsiRecord(record: OfsiRecord): WatchlistEntity | undefined {
  const first = record.rows[0] ?? {};
  const entity = newEntity({
    source: "UK",
    externalId: record.groupId,
    entityType: TYPES[(first["Group Type"] ?? "").toLowerCase()] ?? "organisation",
    verifyUrl: UK_VERIFY_URL,
  });
  const primary = record.rows.find((r) => (r["Alias Type"] ?? "").toLowerCase() === "primary name") ?? first;
  addName(entity, ofsiName(primary), "primary", "strong");
  const other = new Set<string>();
  const raw = new Set<string>();
  for (const row of record.rows) {
    const kind = ALIAS_KINDS[(row["Alias Type"] ?? "").toLowerCase()] ?? "aka";
    const quality = (row["Alias Quality"] ?? "").toLowerCase().startsWith("low") ? "weak" : "strong";
    addName(entity, ofsiName(row), kind === "primary" ? "aka" : kind, quality);
    const script = row["Name Non-Latin Script"];
    if (script) addName(entity, script, "aka", "strong", LANGUAGES[(row["Non-Latin Script Language"] ?? "").toLowerCase()]);
    const date = parsePartialDate(row.DOB);
    if (date) addBirth(entity, dropEmpty({ ...date, place: row["Town of Birth"], country: countryToIso2(row["Country of Birth"]) }));
    for (const n of splitNumbered(row.Nationality ?? "")) addNationality(entity, n);
    addDocuments(entity, "passport", "Passport Number", row["Passport Number"], row["Passport Details"]);
    addDocuments(entity, "national_id", "National Identification Number", row["National Identification Number"], row["National Identification Details"]);
    const lines = ["Address 1", "Address 2", "Address 3", "Address 4", "Address 5", "Address 6", "Post/Zip Code", "Country"].map((k) => row[k]);
    addAddress(entity, dropEmpty({ full: joinParts(lines), country: countryToIso2(row.Country) }));
    addProgramme(entity, row.Regime);
    for (const key of ["Title", "Position", "Other Information"]) {
      const value = row[key];
      if (value) raw.add(key === "Other Information" ? value : `${key}: ${value}`);
    }
  }
  for (const value of raw) other.add(clean(value));
  const info = [...new Set(record.rows.map((r) => r["Other Information"] ?? ""))].join(" ");
  const ref = /\(UK Sanctions List Ref\):\s*([A-Z]{2,4}\d{3,5})/.exec(info)?.[1];
  if (ref) entity.sourceRef = ref;
  const imo = /\bIMO(?: number)?:?\s*(\d{7})\b/i.exec(info)?.[1];
  if (imo && entity.entityType === "vessel") addIdentifier(entity, { type: "imo", label: "IMO", number: imo });
  const gender = /\(Gender\):\s*(Male|Female)/i.exec(info)?.[1]?.toLowerCase();
  if (gender === "male" || gender === "female") entity.gender = gender;
  const listed = record.rows.map((r) => sheetDate(r["Listed On"])).filter((d): d is string => !!d).sort()[0];
  if (listed) entity.listedOn = listed;
  if (other.size) entity.remarks = [...other].join("; ");
  const death = detectDeath(info);
  entity.deceased = death.deceased;
  if (death.dateOfDeath) entity.dateOfDeath = death.dateOfDeath;
  return finishEntity(entity) ? entity : undefined;
}

export function mapFcdoSummaryRecord(record: FcdoSummaryRecord): WatchlistEntity | undefined {
  const entity = newEntity({
    source: "UK",
    externalId: record.uniqueId,
    entityType: TYPES[record.type.toLowerCase()] ?? "organisation",
    verifyUrl: UK_VERIFY_URL,
  });
  entity.sourceRef = record.uniqueId;
  addName(entity, record.name, "primary", "strong");
  for (const regime of record.regimes) addProgramme(entity, regime);
  if (record.dateDesignated) entity.listedOn = record.dateDesignated;
  const remarks = joinParts([
    record.groupId && `OFSI Group ID ${record.groupId}`,
    record.source && `Designation source ${record.source}`,
    record.sanctions && `Sanctions imposed: ${record.sanctions}`,
  ], "; ");
  if (remarks) entity.remarks = remarks;
  return finishEntity(entity) ? entity : undefined;
}
