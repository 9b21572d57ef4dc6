/** Attributes of one sub-record, named as in the XML (`wholeName`, `countryIso2Code`, ...). */
export type EuAttrs = Record<string, string>;

export interface EuRegulation {
  programme: string;
  publicationUrl: string;
  numberTitle: string;
  publicationDate: string;
}

/** One EU FSF subject, the same shape from XML 1.1 and CSV 1.1. */
export interface EuRecord {
  location: string;
  logicalId: string;
  euReferenceNumber: string;
  unitedNationId: string;
  designationDate: string;
  designationDetails: string;
  subjectType: string;
  remarks: string[];
  regulations: EuRegulation[];
  nameAliases: EuAttrs[];
  citizenships: EuAttrs[];
  birthdates: EuAttrs[];
  identifications: EuAttrs[];
  addresses: EuAttrs[];
}

export type EuPart = "nameAliases" | "citizenships" | "birthdates" | "identifications" | "addresses";

export function emptyEuRecord(logicalId: string, location: string): EuRecord {
  return {
    location,
    logicalId,
    euReferenceNumber: "",
    unitedNationId: "",
    designationDate: "",
    designationDetails: "",
    subjectType: "",
    remarks: [],
    regulations: [],
    nameAliases: [],
    citizenships: [],
    birthdates: [],
    identifications: [],
    addresses: [],
  };
}

/** Adds a sub-record unless one with the same logicalId (or the same content) is already there. */
export function addPart(record: EuRecord, part: EuPart, attrs: EuAttrs): void {
  const list = record[part];
  const key = attrs.logicalId ? `id:${attrs.logicalId}` : JSON.stringify(attrs);
  if (list.some((a) => (a.logicalId ? `id:${a.logicalId}` : JSON.stringify(a)) === key)) return;
  list.push(attrs);
}

export function addRegulation(record: EuRecord, regulation: EuRegulation): void {
  if (!regulation.programme && !regulation.publicationUrl && !regulation.numberTitle) return;
  const key = JSON.stringify(regulation);
  if (!record.regulations.some((r) => JSON.stringify(r) === key)) record.regulations.push(regulation);
}
