import { ListParseError } from "../../errors";
import { isoFromParts } from "../common/dates";
import type { ParseOutcome } from "../common/files";
import { identifierType } from "../common/identifiers";
import { type XmlNode, child, childText, childrenNamed, readXml } from "../common/xml";
import {
  type AdvancedLocation,
  datePeriodText,
  type ReferenceValues,
  readLocation,
  readReferenceValues,
  refNode,
  refText,
} from "./advanced-refs";
import { lastFirst } from "./parse-xml";
import { isOfacIdLabel } from "./remarks";
import { aliasKind, emptyRecord, type OfacId, type OfacRecord, type OfacSdnType } from "./types";

interface State {
  file: string;
  refs: ReferenceValues | undefined;
  locations: Map<string, AdvancedLocation>;
  docs: Map<string, OfacId[]>;
  records: Map<string, OfacRecord>;
  publishedAt: string | null;
}

function needRefs(state: State, node: XmlNode): ReferenceValues {
  if (state.refs) return state.refs;
  throw new ListParseError({
    file: state.file,
    location: `element ${node.name}`,
    reason: "ReferenceValueSets must come before the records that point into them",
  });
}

function partyType(refs: ReferenceValues, subTypeId: string | undefined): OfacSdnType {
  const sub = refNode(refs, "PartySubType", subTypeId);
  const subText = (sub?.text ?? "").trim().toLowerCase();
  if (subText === "vessel") return "vessel";
  if (subText === "aircraft") return "aircraft";
  return refText(refs, "PartyType", sub?.attrs.PartyTypeID).toLowerCase() === "individual" ? "individual" : "entity";
}

function readIdDocument(state: State, node: XmlNode): void {
  const refs = needRefs(state, node);
  const identity = node.attrs.IdentityID ?? "";
  const notes = childrenNamed(node, "DocumentDate").map(
    (d) => `${refText(refs, "IDRegDocDateType", d.attrs.IDRegDocDateTypeID)} ${datePeriodText(child(d, "DatePeriod") ?? d)}`.trim(),
  );
  const comment = childText(node, "Comment");
  if (comment) notes.push(comment);
  const doc: OfacId = {
    label: refText(refs, "IDRegDocType", node.attrs.IDRegDocTypeID),
    number: childText(node, "IDRegistrationNo"),
    country: refText(refs, "Country", node.attrs["IssuedBy-CountryID"]) || undefined,
    note: notes.join("; ") || undefined,
  };
  state.docs.set(identity, [...(state.docs.get(identity) ?? []), doc]);
}

function readNames(refs: ReferenceValues, record: OfacRecord, identity: XmlNode): void {
  const groupType = new Map<string, string>();
  for (const group of childrenNamed(child(identity, "NamePartGroups"), "MasterNamePartGroup")) {
    for (const g of childrenNamed(group, "NamePartGroup")) groupType.set(g.attrs.ID ?? "", refText(refs, "NamePartType", g.attrs.NamePartTypeID));
  }
  for (const alias of childrenNamed(identity, "Alias")) {
    const primary = alias.attrs.Primary === "true";
    const quality = alias.attrs.LowQuality === "true" ? "weak" : "strong";
    for (const documented of childrenNamed(alias, "DocumentedName")) {
      const last: string[] = [];
      const other: string[] = [];
      let nonLatin = false;
      for (const part of childrenNamed(documented, "DocumentedNamePart")) {
        const value = child(part, "NamePartValue");
        const text = (value?.text ?? "").trim();
        if (!value || !text) continue;
        const script = refNode(refs, "Script", value.attrs.ScriptID)?.attrs.ScriptCode ?? "Latin";
        if (script !== "Latin") nonLatin = true;
        (groupType.get(value.attrs.NamePartGroupID ?? "") === "Last Name" ? last : other).push(text);
      }
      const name = record.sdnType === "individual" ? lastFirst(last.join(" "), other.join(" ")) : [...last, ...other].join(" ");
      if (primary && !record.name && !nonLatin) record.name = name;
      else record.aliases.push({ name, kind: aliasKind(refText(refs, "AliasType", alias.attrs.AliasTypeID)), quality, originalScript: nonLatin });
    }
  }
}

function readFeature(state: State, refs: ReferenceValues, record: OfacRecord, feature: XmlNode, extras: string[]): void {
  const type = refText(refs, "FeatureType", feature.attrs.FeatureTypeID);
  for (const version of childrenNamed(feature, "FeatureVersion")) {
    const period = child(version, "DatePeriod");
    const detail = child(version, "VersionDetail");
    const detailText = (detail?.text ?? "").trim() || refText(refs, "DetailReference", detail?.attrs.DetailReferenceID);
    const location = state.locations.get(child(version, "VersionLocation")?.attrs.LocationID ?? "");
    const value = (period ? datePeriodText(period) : "") || detailText || location?.full || "";
    const key = type.toLowerCase();
    if (key === "birthdate") record.dobs.push(value);
    else if (key === "place of birth") record.pobs.push(detailText || location?.full || "");
    else if (key === "nationality country" || key === "nationality of registration") record.nationalities.push(location?.country || detailText);
    else if (key === "citizenship country") record.citizenships.push(location?.country || detailText);
    else if (key === "location") {
      if (location?.full) record.addresses.push(location);
    } else if (key === "gender") record.gender = value.toLowerCase();
    else if (key === "title") record.title = value;
    else if (key.startsWith("vessel ") || key === "other vessel flag") {
      record.vessel ??= { callSign: "", type: "", flag: "", owner: "", tonnage: "", grt: "" };
      if (key === "vessel call sign") record.vessel.callSign = value;
      else if (key === "vessel type") record.vessel.type = value;
      else if (key === "vessel flag") record.vessel.flag = value;
      else if (key === "vessel owner") record.vessel.owner = value;
      else if (key === "vessel tonnage") record.vessel.tonnage = value;
      else if (key === "vessel gross registered tonnage") record.vessel.grt = value;
    } else if (value && (identifierType(type) !== "other" || isOfacIdLabel(type))) record.ids.push({ label: type, number: value });
    else if (value) extras.push(`${type} ${value}`.trim());
  }
}

function readParty(state: State, party: XmlNode, index: number): void {
  const refs = needRefs(state, party);
  const uid = party.attrs.FixedRef ?? "";
  for (const profile of childrenNamed(party, "Profile")) {
    const record = emptyRecord(uid, `${state.file} element /Sanctions/DistinctParties/DistinctParty[${index}]`, partyType(refs, profile.attrs.PartySubTypeID));
    const identities = childrenNamed(profile, "Identity").sort((a, b) => Number(b.attrs.Primary === "true") - Number(a.attrs.Primary === "true"));
    for (const identity of identities) {
      readNames(refs, record, identity);
      record.ids.push(...(state.docs.get(identity.attrs.ID ?? "") ?? []));
    }
    const extras: string[] = [];
    for (const feature of childrenNamed(profile, "Feature")) readFeature(state, refs, record, feature, extras);
    record.remarks = [childText(party, "Comment"), ...extras].filter((s) => s !== "").join("; ");
    if (!uid || !record.name) {
      throw new ListParseError({ file: state.file, location: `element /Sanctions/DistinctParties/DistinctParty[${index}]`, reason: "DistinctParty without FixedRef or primary name" });
    }
    state.records.set(profile.attrs.ID ?? uid, record);
  }
}

function readSanctionsEntry(state: State, entry: XmlNode): void {
  const refs = needRefs(state, entry);
  const record = state.records.get(entry.attrs.ProfileID ?? "");
  if (!record) return;
  for (const measure of childrenNamed(entry, "SanctionsMeasure")) {
    const program = childText(measure, "Comment");
    if (refText(refs, "SanctionsType", measure.attrs.SanctionsTypeID) === "Program" && program && !record.programs.includes(program)) {
      record.programs.push(program);
    }
  }
  for (const event of childrenNamed(entry, "EntryEvent")) {
    const d = child(event, "Date");
    const iso = isoFromParts(Number(childText(d, "Year")), Number(childText(d, "Month")), Number(childText(d, "Day")));
    if (iso && (!record.listedOn || iso < record.listedOn)) record.listedOn = iso;
  }
}

const CAPTURED: Record<string, string> = {
  DateOfIssue: "",
  ReferenceValueSets: "",
  Location: "Locations",
  IDRegDocument: "IDRegDocuments",
  DistinctParty: "DistinctParties",
  SanctionsEntry: "SanctionsEntries",
};

/**
 * The Advanced Sanctions Data Model (sdn_advanced.xml / cons_advanced.xml), streamed: only
 * reference tables, locations and documents are kept while parties are read one at a time.
 */
export function parseOfacAdvancedXml(file: string, chunks: () => Iterable<string>): ParseOutcome<OfacRecord> {
  const state: State = { file, refs: undefined, locations: new Map(), docs: new Map(), records: new Map(), publishedAt: null };
  let parties = 0;
  readXml(chunks, {
    file,
    onRoot: (name) => {
      if (name !== "Sanctions") throw new ListParseError({ file, location: "root element", reason: `expected Sanctions, found ${name}` });
    },
    capture: (path, name) => {
      const parent = CAPTURED[name];
      return parent !== undefined && (parent === "" ? path.length === 1 : path.length === 2 && path[1] === parent);
    },
    onNode: (node) => {
      if (node.name === "DateOfIssue") {
        state.publishedAt = isoFromParts(Number(childText(node, "Year")), Number(childText(node, "Month")), Number(childText(node, "Day"))) ?? null;
      } else if (node.name === "ReferenceValueSets") state.refs = readReferenceValues(node);
      else if (node.name === "Location") state.locations.set(node.attrs.ID ?? "", readLocation(needRefs(state, node), node));
      else if (node.name === "IDRegDocument") readIdDocument(state, node);
      else if (node.name === "DistinctParty") readParty(state, node, ++parties);
      else readSanctionsEntry(state, node);
    },
  });
  return { records: [...state.records.values()], warnings: [], publishedAt: state.publishedAt };
}
