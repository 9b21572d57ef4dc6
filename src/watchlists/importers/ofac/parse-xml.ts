import { ListParseError } from "../../errors";
import { joinParts } from "../common/build";
import { isoDate } from "../common/dates";
import type { ParseOutcome } from "../common/files";
import { type XmlNode, child, childText, childrenNamed, readXml } from "../common/xml";
import { identifierType } from "../common/identifiers";
import { isOfacIdLabel } from "./remarks";
import { aliasKind, emptyRecord, type OfacRecord, sdnTypeFrom } from "./types";

/** "LAST, First" as in the CSV, so every OFAC format yields the same published name. */
export function lastFirst(last: string, first: string): string {
  return first && last ? `${last}, ${first}` : last || first;
}

function listTexts(node: XmlNode, list: string, item: string, field: string): string[] {
  return childrenNamed(child(node, list), item)
    .map((i) => childText(i, field))
    .filter((v) => v !== "");
}

function toRecord(file: string, entry: XmlNode, index: number): OfacRecord {
  const uid = childText(entry, "uid");
  const location = `${file} element /sdnList/sdnEntry[${index}]`;
  const type = sdnTypeFrom(childText(entry, "sdnType"));
  if (!uid || !type) {
    throw new ListParseError({
      file,
      location: `element /sdnList/sdnEntry[${index}]`,
      reason: uid ? `unknown sdnType ${JSON.stringify(childText(entry, "sdnType"))}` : "sdnEntry without uid",
    });
  }
  const record = emptyRecord(uid, location, type);
  record.name = lastFirst(childText(entry, "lastName"), childText(entry, "firstName"));
  record.title = childText(entry, "title");
  record.remarks = childText(entry, "remarks");
  record.programs = childrenNamed(child(entry, "programList"), "program")
    .map((p) => p.text.trim())
    .filter((p) => p !== "");
  for (const aka of childrenNamed(child(entry, "akaList"), "aka")) {
    record.aliases.push({
      name: lastFirst(childText(aka, "lastName"), childText(aka, "firstName")),
      kind: aliasKind(childText(aka, "type")),
      quality: childText(aka, "category").toLowerCase() === "weak" ? "weak" : "strong",
    });
  }
  record.dobs = listTexts(entry, "dateOfBirthList", "dateOfBirthItem", "dateOfBirth");
  record.pobs = listTexts(entry, "placeOfBirthList", "placeOfBirthItem", "placeOfBirth");
  record.nationalities = listTexts(entry, "nationalityList", "nationality", "country");
  record.citizenships = listTexts(entry, "citizenshipList", "citizenship", "country");
  const extras: string[] = [];
  for (const id of childrenNamed(child(entry, "idList"), "id")) {
    const label = childText(id, "idType");
    const number = childText(id, "idNumber");
    const imo = /^IMO (\S+)$/.exec(number);
    if (label.toLowerCase() === "gender") record.gender = number.toLowerCase();
    else if (label === "Nationality of Registration") record.nationalities.push(childText(id, "idCountry") || number);
    else if (imo) record.ids.push({ label: "IMO", number: imo[1] ?? "" });
    else if (identifierType(label) !== "other" || isOfacIdLabel(label)) {
      const dates = joinParts([
        childText(id, "issueDate") && `issued ${childText(id, "issueDate")}`,
        childText(id, "expirationDate") && `expires ${childText(id, "expirationDate")}`,
      ]);
      record.ids.push({ label, number, country: childText(id, "idCountry") || undefined, note: dates || undefined });
    } else extras.push(`${label} ${number}`.trim());
  }
  record.remarks = joinParts([record.remarks, ...extras], "; ");
  for (const a of childrenNamed(child(entry, "addressList"), "address")) {
    const city = joinParts([childText(a, "city"), childText(a, "stateOrProvince"), childText(a, "postalCode")], " ");
    const full = joinParts([childText(a, "address1"), childText(a, "address2"), childText(a, "address3"), city, childText(a, "country")]);
    if (full) record.addresses.push({ full, city: childText(a, "city"), country: childText(a, "country") });
  }
  const vessel = child(entry, "vesselInfo");
  if (vessel) {
    record.vessel = {
      callSign: childText(vessel, "callSign"),
      type: childText(vessel, "vesselType"),
      flag: childText(vessel, "vesselFlag"),
      owner: childText(vessel, "vesselOwner"),
      tonnage: childText(vessel, "tonnage"),
      grt: childText(vessel, "grossRegisteredTonnage"),
    };
  }
  return record;
}

/** The legacy SDN.XML schema (`sdnList`), any namespace. Publish_Date is MM/DD/YYYY. */
export function parseOfacXml(file: string, chunks: () => Iterable<string>): ParseOutcome<OfacRecord> {
  const records: OfacRecord[] = [];
  let publishedAt: string | null = null;
  let declaredCount: number | undefined;
  let index = 0;
  readXml(chunks, {
    file,
    onRoot: (name) => {
      if (name !== "sdnList") throw new ListParseError({ file, location: "root element", reason: `expected sdnList, found ${name}` });
    },
    capture: (path, name) => path.length === 1 && (name === "sdnEntry" || name === "publshInformation"),
    onNode: (node) => {
      if (node.name === "publshInformation") {
        const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(childText(node, "Publish_Date"));
        publishedAt = m ? (isoDate(`${m[2]}/${m[1]}/${m[3]}`) ?? null) : null;
        const count = Number(childText(node, "Record_Count"));
        if (Number.isFinite(count) && childText(node, "Record_Count") !== "") declaredCount = count;
        return;
      }
      index++;
      records.push(toRecord(file, node, index));
    },
  });
  if (declaredCount !== undefined && declaredCount !== records.length) {
    throw new ListParseError({
      file,
      location: "element /sdnList/publshInformation/Record_Count",
      reason: `Record_Count says ${declaredCount} entries but the file holds ${records.length}`,
    });
  }
  return { records, warnings: [], publishedAt };
}
