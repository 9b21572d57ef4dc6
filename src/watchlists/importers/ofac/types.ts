import type { AliasQuality } from "../../entity";

export type OfacSdnType = "individual" | "entity" | "vessel" | "aircraft";

export interface OfacAlias {
  /** As published; individuals as "LAST, First". */
  name: string;
  kind: "aka" | "fka" | "nka";
  quality: AliasQuality;
  /** True for names the advanced XML marks as non-Latin script. */
  originalScript?: boolean;
}

export interface OfacId {
  label: string;
  number: string;
  /** Country as written by OFAC (name, not code). */
  country?: string;
  note?: string;
}

export interface OfacAddress {
  full: string;
  city?: string;
  country?: string;
}

/** One OFAC record, the same shape whichever of the three formats it came from. */
export interface OfacRecord {
  uid: string;
  /** Where the record is in its file, for warnings. */
  location: string;
  sdnType: OfacSdnType;
  /** As published; individuals as "LAST, First Middle". */
  name: string;
  title: string;
  programs: string[];
  remarks: string;
  aliases: OfacAlias[];
  dobs: string[];
  pobs: string[];
  nationalities: string[];
  citizenships: string[];
  ids: OfacId[];
  addresses: OfacAddress[];
  gender?: string;
  listedOn?: string;
  vessel?: { callSign: string; type: string; flag: string; owner: string; tonnage: string; grt: string };
}

export function emptyRecord(uid: string, location: string, sdnType: OfacSdnType): OfacRecord {
  return {
    uid,
    location,
    sdnType,
    name: "",
    title: "",
    programs: [],
    remarks: "",
    aliases: [],
    dobs: [],
    pobs: [],
    nationalities: [],
    citizenships: [],
    ids: [],
    addresses: [],
  };
}

export function sdnTypeFrom(text: string): OfacSdnType | undefined {
  const t = text.trim().toLowerCase();
  if (t === "individual") return "individual";
  if (t === "vessel") return "vessel";
  if (t === "aircraft") return "aircraft";
  if (t === "-0-" || t === "" || t === "entity") return "entity";
  return undefined;
}

export function aliasKind(type: string): OfacAlias["kind"] {
  const t = type.toLowerCase().replace(/[^a-z]/g, "");
  if (t === "fka") return "fka";
  if (t === "nka") return "nka";
  return "aka";
}
