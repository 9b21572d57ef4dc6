import { countryToIso2 } from "../../../lib/countries";
import type { BirthRecord, EntityType, WatchlistEntity } from "../../entity";
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
import { clean, detectDeath } from "../common/text";
import type { OfacRecord } from "./types";

export const OFAC_VERIFY_URL = "https://sanctionssearch.ofac.treas.gov/Details.aspx?id=";

const ENTITY_TYPES: Record<OfacRecord["sdnType"], EntityType> = {
  individual: "person",
  entity: "organisation",
  vessel: "vessel",
  aircraft: "aircraft",
};

/**
 * OFAC publishes individuals as "LAST, First Middle". Matching is order-free, so we keep the
 * published order and only drop the separating comma(s): "HANIYA Ismail Abdul Salah".
 * Organisation names keep their commas ("ANGLO-CARIBBEAN CO., LTD.").
 */
export function ofacDisplayName(name: string, type: OfacRecord["sdnType"]): string {
  if (type !== "individual") return clean(name);
  return name
    .split(",")
    .map((part) => clean(part))
    .filter((part) => part !== "")
    .join(" ");
}

function countryOfPlace(place: string): string | undefined {
  const parts = place.split(",");
  return countryToIso2(parts[parts.length - 1]);
}

function births(record: OfacRecord): BirthRecord[] {
  const pobs = record.pobs.map(clean).filter((p) => p !== "");
  const place = pobs.length === 1 ? pobs[0] : undefined;
  const countries = [...new Set(pobs.map(countryOfPlace))];
  const country = countries.length === 1 ? countries[0] : undefined;
  const out: BirthRecord[] = [];
  for (const dob of record.dobs) {
    const date = parsePartialDate(dob);
    if (date) out.push(dropEmpty({ ...date, place, country }));
  }
  return out;
}

function vesselRemarks(record: OfacRecord): string {
  const v = record.vessel;
  if (!v) return "";
  return joinParts(
    [
      v.type && `Vessel: type ${v.type}`,
      v.flag && `flag ${v.flag}`,
      v.owner && `owner ${v.owner}`,
      v.tonnage && `tonnage ${v.tonnage}`,
      v.grt && `GRT ${v.grt}`,
    ],
    "; ",
  );
}

export function mapOfacRecord(record: OfacRecord): WatchlistEntity | undefined {
  const entity = newEntity({
    source: "OFAC",
    externalId: record.uid,
    entityType: ENTITY_TYPES[record.sdnType],
    verifyUrl: OFAC_VERIFY_URL + record.uid,
  });
  addName(entity, ofacDisplayName(record.name, record.sdnType), "primary", "strong");
  for (const alias of record.aliases) {
    addName(entity, ofacDisplayName(alias.name, record.sdnType), alias.kind, alias.quality);
  }
  for (const birth of births(record)) addBirth(entity, birth);
  for (const country of [...record.nationalities, ...record.citizenships]) addNationality(entity, country);
  for (const id of record.ids) {
    const country = countryToIso2(id.country);
    const note = joinParts([country ? undefined : id.country, id.note], "; ");
    addIdentifier(entity, dropEmpty({ type: identifierType(id.label), label: id.label, number: id.number, country, note }));
  }
  if (record.vessel?.callSign) addIdentifier(entity, { type: "call_sign", label: "Call Sign", number: record.vessel.callSign });
  for (const address of record.addresses) {
    addAddress(entity, dropEmpty({ full: address.full, city: clean(address.city), country: countryToIso2(address.country) }));
  }
  for (const programme of record.programs) addProgramme(entity, programme);
  if (record.listedOn) entity.listedOn = record.listedOn;
  if (record.gender === "male" || record.gender === "female") entity.gender = record.gender;
  const title = record.title && !record.remarks.includes(record.title) ? `Title: ${record.title}` : "";
  const remarks = joinParts([joinParts([title, record.remarks], "; "), vesselRemarks(record)], " ");
  if (remarks) entity.remarks = remarks;
  const death = detectDeath(record.remarks);
  entity.deceased = death.deceased;
  if (death.dateOfDeath) entity.dateOfDeath = death.dateOfDeath;
  return finishEntity(entity) ? entity : undefined;
}
