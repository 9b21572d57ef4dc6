import { countryToIso2 } from "../../../lib/countries";
import type { PartialDate, WatchlistEntity } from "../../entity";
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
import { isoDate, isoFromParts, parsePartialDate } from "../common/dates";
import { identifierType } from "../common/identifiers";
import { detectDeath, isNonLatin } from "../common/text";
import type { EuAttrs, EuRecord } from "./types";

/**
 * The EU has no per-record page: link the listing regulation on EUR-Lex when the file gives
 * one, else the dataset page; the EU reference number goes in sourceRef for searching.
 */
export const EU_FALLBACK_URL =
  "https://data.europa.eu/data/datasets/consolidated-list-of-persons-groups-and-entities-subject-to-eu-financial-sanctions";

const ID_CODES: Record<string, string> = {
  passport: "passport",
  id: "national_id",
  ssn: "national_id",
  regnumber: "registration",
  fiscalcode: "tax_id",
  tin: "tax_id",
  swiftbic: "swift_bic",
  imo: "imo",
};

const yes = (v: string | undefined) => v === "true" || v === "1";

function euBirthDate(b: EuAttrs): PartialDate | undefined {
  const circa = yes(b.circa);
  let date = parsePartialDate(b.birthdate);
  if (!date && b.year) {
    const iso = isoFromParts(Number(b.year), Number(b.monthOfYear) || undefined, Number(b.dayOfMonth) || undefined);
    date = iso ? { date: iso } : undefined;
  }
  if (!date && b.yearRangeFrom && b.yearRangeTo) date = parsePartialDate(`${b.yearRangeFrom} to ${b.yearRangeTo}`);
  if (!date && b.yearRangeFrom) date = parsePartialDate(b.yearRangeFrom);
  return date && circa ? { ...date, circa: true } : date;
}

function primaryAlias(aliases: EuAttrs[]): EuAttrs | undefined {
  return (
    aliases.find((a) => a.wholeName && a.strong !== "false" && !isNonLatin(a.wholeName)) ?? aliases.find((a) => a.wholeName)
  );
}

function idNote(i: EuAttrs): string {
  const flags = [
    yes(i.diplomatic) && "diplomatic",
    yes(i.knownFalse) && "known false",
    yes(i.knownExpired) && "known expired",
    yes(i.reportedLost) && "reported lost",
    yes(i.revokedByIssuer) && "revoked by issuer",
  ];
  return joinParts([i.issuedBy && `issued by ${i.issuedBy}`, ...flags.map((f) => f || undefined), i.nameOnDocument && `name on document ${i.nameOnDocument}`], "; ");
}

export function mapEuRecord(record: EuRecord): WatchlistEntity | undefined {
  const regulation = record.regulations.find((r) => r.publicationUrl);
  const type = record.subjectType.toLowerCase();
  const entity = newEntity({
    source: "EU",
    externalId: record.logicalId,
    entityType: type === "person" || type === "p" ? "person" : "organisation",
    verifyUrl: regulation?.publicationUrl || EU_FALLBACK_URL,
  });
  if (record.euReferenceNumber) entity.sourceRef = record.euReferenceNumber;
  const primary = primaryAlias(record.nameAliases);
  if (primary) addName(entity, primary.wholeName, "primary", "strong", primary.nameLanguage);
  const functions: string[] = [];
  for (const alias of record.nameAliases) {
    addName(entity, alias.wholeName, "aka", alias.strong === "false" ? "weak" : "strong", alias.nameLanguage);
    const gender = (alias.gender ?? "").toUpperCase();
    if (!entity.gender && (gender === "M" || gender === "F")) entity.gender = gender === "M" ? "male" : "female";
    if (alias.function && !functions.includes(alias.function)) functions.push(alias.function);
  }
  for (const b of record.birthdates) {
    const date = euBirthDate(b);
    const country = countryToIso2(b.countryIso2Code) ?? countryToIso2(b.countryDescription);
    if (date) addBirth(entity, dropEmpty({ ...date, place: joinParts([b.city, b.place, b.region]), country }));
  }
  for (const c of record.citizenships) {
    if (!addNationality(entity, c.countryIso2Code)) addNationality(entity, c.countryDescription);
  }
  for (const i of record.identifications) {
    const label = i.identificationTypeDescription || i.identificationTypeCode || "";
    const type = ID_CODES[(i.identificationTypeCode ?? "").toLowerCase()] ?? identifierType(label);
    const country = countryToIso2(i.countryIso2Code) ?? countryToIso2(i.countryDescription);
    addIdentifier(entity, dropEmpty({ type, label, number: i.number || i.latinNumber || "", country, note: idNote(i) }));
  }
  for (const a of record.addresses) {
    const full = joinParts([a.street, a.poBox && `PO Box ${a.poBox}`, a.zipCode, a.city, a.place, a.region, a.countryDescription]);
    addAddress(entity, dropEmpty({ full, city: a.city, country: countryToIso2(a.countryIso2Code) ?? countryToIso2(a.countryDescription) }));
  }
  for (const r of record.regulations) addProgramme(entity, r.programme);
  const listedOn = isoDate(record.designationDate) ?? record.regulations.map((r) => isoDate(r.publicationDate)).filter(Boolean).sort()[0];
  if (listedOn) entity.listedOn = listedOn;
  const remarks = joinParts([
    record.unitedNationId && `UN reference ${record.unitedNationId}`,
    functions.length ? `Function: ${functions.join("; ")}` : "",
    record.designationDetails,
    ...record.remarks,
  ], "; ");
  if (remarks) entity.remarks = remarks;
  const death = detectDeath(record.remarks.join("\n"));
  entity.deceased = death.deceased;
  if (death.dateOfDeath) entity.dateOfDeath = death.dateOfDeath;
  return finishEntity(entity) ? entity : undefined;
}
