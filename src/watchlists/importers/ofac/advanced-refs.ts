import { joinParts } from "../common/build";
import { type XmlNode, child, childText, childrenNamed, textOf } from "../common/xml";

/** Lookup tables of the advanced XML's ReferenceValueSets, keyed by element name then ID. */
export type ReferenceValues = Map<string, Map<string, XmlNode>>;

export function readReferenceValues(sets: XmlNode): ReferenceValues {
  const out: ReferenceValues = new Map();
  for (const set of sets.children) {
    for (const value of set.children) {
      const id = value.attrs.ID;
      if (!id || value.name === "#text") continue;
      let byId = out.get(value.name);
      if (!byId) {
        byId = new Map();
        out.set(value.name, byId);
      }
      byId.set(id, value);
    }
  }
  return out;
}

export function refText(refs: ReferenceValues, kind: string, id: string | undefined): string {
  return id ? textOf(refs.get(kind)?.get(id)) : "";
}

export function refNode(refs: ReferenceValues, kind: string, id: string | undefined): XmlNode | undefined {
  return id ? refs.get(kind)?.get(id) : undefined;
}

export interface AdvancedLocation {
  full: string;
  city?: string;
  country?: string;
}

const PART_ORDER = ["ADDRESS1", "ADDRESS2", "ADDRESS3", "CITY", "STATE/PROVINCE", "POSTAL CODE", "REGION", "Unknown"];

export function readLocation(refs: ReferenceValues, node: XmlNode): AdvancedLocation {
  const parts = new Map<string, string>();
  for (const part of childrenNamed(node, "LocationPart")) {
    const type = refText(refs, "LocPartType", part.attrs.LocPartTypeID) || "Unknown";
    const values = childrenNamed(part, "LocationPartValue");
    const primary = values.find((v) => v.attrs.Primary === "true") ?? values[0];
    const value = childText(primary, "Value");
    if (value) parts.set(type, value);
  }
  const countryId = child(node, "LocationCountry")?.attrs.CountryID;
  const areaId = child(node, "LocationAreaCode")?.attrs.AreaCodeID;
  const country =
    refText(refs, "Country", countryId) ||
    (refNode(refs, "AreaCode", areaId)?.attrs.Description ?? "").replace(/^undetermined$/i, "");
  const full = joinParts([...PART_ORDER.map((type) => parts.get(type)), country]);
  return { full, city: parts.get("CITY"), country: country || parts.get("Unknown") };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

interface Ymd {
  y: number;
  m: number;
  d: number;
}

function ymd(node: XmlNode | undefined): Ymd | undefined {
  const y = Number(childText(node, "Year"));
  if (!node || !y) return undefined;
  return { y, m: Number(childText(node, "Month") || "1"), d: Number(childText(node, "Day") || "1") };
}

const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const dayText = (v: Ymd) => `${String(v.d).padStart(2, "0")} ${MONTHS[v.m - 1]} ${v.y}`;

/**
 * Writes a DatePeriod the way the CSV Remarks write dates ("10 Dec 1948", "Mar 1961", "1962",
 * "1960 to 1962", "circa 1958"), so every OFAC format produces the same birth records.
 */
export function datePeriodText(period: XmlNode): string {
  const start = child(period, "Start");
  const end = child(period, "End");
  const from = ymd(child(start, "From")) ?? ymd(start);
  const to = ymd(child(end, "To")) ?? ymd(child(start, "To")) ?? from;
  if (!from || !to) return "";
  const circa = start?.attrs.Approximate === "true" || end?.attrs.Approximate === "true" ? "circa " : "";
  const wholeYears = from.m === 1 && from.d === 1 && to.m === 12 && to.d === 31;
  let text: string;
  if (from.y === to.y && from.m === to.m && from.d === to.d) text = dayText(from);
  else if (wholeYears && from.y === to.y) text = String(from.y);
  else if (wholeYears) text = `${from.y} to ${to.y}`;
  else if (from.y === to.y && from.m === to.m && from.d === 1 && to.d === lastDay(to.y, to.m)) text = `${MONTHS[from.m - 1]} ${from.y}`;
  else text = `${dayText(from)} to ${dayText(to)}`;
  return circa + text;
}
