import { countryToIso2 } from "../../../lib/countries";
import type { WatchlistEntity } from "../../entity";
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
import { identifierType } from "../common/identifiers";
import { detectDeath } from "../common/text";
import type { UnRecord } from "./parse";

/**
 * The UN publishes no per-record page, so every record links to the Security Council
 * consolidated list page, whose search finds the record by its reference number (externalId).
 */
export const UN_VERIFY_URL = "https://main.un.org/securitycouncil/en/content/un-sc-consolidated-list";

function birthDate(dob: Record<string, string>) {
  const type = (dob.TYPE_OF_DATE ?? "").toUpperCase();
  if (dob.FROM_YEAR && dob.TO_YEAR) {
    const date = parsePartialDate(`${dob.FROM_YEAR} to ${dob.TO_YEAR}`);
    return date && type === "APPROXIMATELY" ? { ...date, circa: true } : date;
  }
  const date = parsePartialDate(dob.DATE ?? dob.YEAR);
  return date && type === "APPROXIMATELY" ? { ...date, circa: true } : date;
}

export function mapUnRecord(record: UnRecord): WatchlistEntity | undefined {
  const entity = newEntity({
    source: "UN",
    externalId: record.reference,
    entityType: record.kind === "individual" ? "person" : "organisation",
    verifyUrl: UN_VERIFY_URL,
  });
  addName(entity, record.nameParts.join(" "), "primary", "strong");
  for (const alias of record.aliases) addName(entity, alias.name, "aka", alias.quality.toLowerCase() === "low" ? "weak" : "strong");
  for (const original of record.originalScript) addName(entity, original, "aka", "strong");
  const places = record.pobs.map((p) => ({ place: joinParts([p.STREET, p.CITY, p.STATE_PROVINCE, p.COUNTRY]), country: countryToIso2(p.COUNTRY) }));
  const single = places.length === 1 ? places[0] : undefined;
  for (const dob of record.dobs) {
    const date = birthDate(dob);
    if (date) addBirth(entity, dropEmpty({ ...date, place: single?.place, country: single?.country }));
  }
  for (const n of record.nationalities) addNationality(entity, n);
  for (const doc of record.documents) {
    const label = joinParts([doc.TYPE_OF_DOCUMENT, doc.TYPE_OF_DOCUMENT2], " / ");
    const countryText = doc.ISSUING_COUNTRY ?? doc.COUNTRY_OF_ISSUE;
    const country = countryToIso2(countryText);
    const note = joinParts([
      country ? undefined : countryText,
      doc.DATE_OF_ISSUE && `issued ${doc.DATE_OF_ISSUE}`,
      doc.CITY_OF_ISSUE,
      doc.NOTE,
    ], "; ");
    addIdentifier(entity, dropEmpty({ type: identifierType(label), label, number: doc.NUMBER ?? "", country, note }));
  }
  for (const a of record.addresses) {
    addAddress(entity, dropEmpty({ full: joinParts([a.STREET, a.CITY, a.STATE_PROVINCE, a.ZIP_CODE, a.COUNTRY]), city: a.CITY, country: countryToIso2(a.COUNTRY) }));
  }
  addProgramme(entity, record.listType);
  if (record.listedOn) entity.listedOn = record.listedOn;
  const gender = record.gender.toLowerCase();
  if (gender === "male" || gender === "female") entity.gender = gender;
  const remarks = joinParts([
    record.titles.length ? `Title: ${record.titles.join(", ")}` : "",
    record.designations.length ? `Designation: ${record.designations.join(", ")}` : "",
    record.comments,
  ], "; ");
  if (remarks) entity.remarks = remarks;
  const death = detectDeath(record.comments);
  entity.deceased = death.deceased;
  if (death.dateOfDeath) entity.dateOfDeath = death.dateOfDeath;
  return finishEntity(entity) ? entity : undefined;
}
