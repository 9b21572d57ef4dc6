import { ListParseError } from "../../errors";
import type { ParseOutcome } from "../common/files";
import { type XmlNode, child, childText, childrenNamed, readXml } from "../common/xml";

export interface UnRecord {
  location: string;
  kind: "individual" | "entity";
  reference: string;
  /** FIRST_NAME … FOURTH_NAME in published order (for entities only the first is set). */
  nameParts: string[];
  listType: string;
  listedOn: string;
  gender: string;
  comments: string;
  titles: string[];
  designations: string[];
  nationalities: string[];
  originalScript: string[];
  aliases: { name: string; quality: string }[];
  /** Every child element of each address, date-of-birth, place-of-birth and document group. */
  addresses: Record<string, string>[];
  dobs: Record<string, string>[];
  pobs: Record<string, string>[];
  documents: Record<string, string>[];
}

function values(node: XmlNode, name: string): string[] {
  return childrenNamed(child(node, name), "VALUE")
    .map((v) => v.text.trim())
    .filter((v) => v !== "");
}

function fields(node: XmlNode): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of node.children) {
    const text = c.text.trim();
    if (c.name !== "#text" && text) out[c.name] = out[c.name] ? `${out[c.name]}; ${text}` : text;
  }
  return out;
}

function groups(node: XmlNode, name: string): Record<string, string>[] {
  return childrenNamed(node, name)
    .map(fields)
    .filter((g) => Object.keys(g).some((k) => k !== "TYPE_OF_DATE" && k !== "QUALITY"));
}

function toRecord(file: string, node: XmlNode, index: number): UnRecord {
  const kind = node.name === "INDIVIDUAL" ? "individual" : "entity";
  const location = `${file} element /CONSOLIDATED_LIST/${kind === "individual" ? "INDIVIDUALS" : "ENTITIES"}/${node.name}[${index}]`;
  const reference = childText(node, "REFERENCE_NUMBER");
  if (!reference) throw new ListParseError({ file, location: location.slice(file.length + 1), reason: "record without REFERENCE_NUMBER" });
  const prefix = kind === "individual" ? "INDIVIDUAL" : "ENTITY";
  return {
    location,
    kind,
    reference,
    nameParts: ["FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME"].map((n) => childText(node, n)).filter((p) => p !== ""),
    listType: childText(node, "UN_LIST_TYPE"),
    listedOn: childText(node, "LISTED_ON"),
    gender: childText(node, "GENDER"),
    comments: childText(node, "COMMENTS1"),
    titles: values(node, "TITLE"),
    designations: values(node, "DESIGNATION"),
    nationalities: values(node, "NATIONALITY"),
    originalScript: childrenNamed(node, "NAME_ORIGINAL_SCRIPT").map((n) => n.text.trim()).filter((n) => n !== ""),
    aliases: childrenNamed(node, `${prefix}_ALIAS`)
      .map((a) => ({ name: childText(a, "ALIAS_NAME"), quality: childText(a, "QUALITY") }))
      .filter((a) => a.name !== ""),
    addresses: groups(node, `${prefix}_ADDRESS`),
    dobs: groups(node, "INDIVIDUAL_DATE_OF_BIRTH"),
    pobs: groups(node, "INDIVIDUAL_PLACE_OF_BIRTH"),
    documents: groups(node, "INDIVIDUAL_DOCUMENT"),
  };
}

/** UN Security Council consolidated list XML (root CONSOLIDATED_LIST, dateGenerated attribute). */
export function parseUnXml(file: string, chunks: () => Iterable<string>): ParseOutcome<UnRecord> {
  const records: UnRecord[] = [];
  let publishedAt: string | null = null;
  const counts = { INDIVIDUAL: 0, ENTITY: 0 };
  readXml(chunks, {
    file,
    onRoot: (name, attrs) => {
      if (name !== "CONSOLIDATED_LIST") {
        throw new ListParseError({ file, location: "root element", reason: `expected CONSOLIDATED_LIST, found ${name}` });
      }
      publishedAt = attrs.dateGenerated?.trim() || null;
    },
    capture: (path, name) =>
      path.length === 2 && ((name === "INDIVIDUAL" && path[1] === "INDIVIDUALS") || (name === "ENTITY" && path[1] === "ENTITIES")),
    onNode: (node) => {
      const key = node.name === "INDIVIDUAL" ? "INDIVIDUAL" : "ENTITY";
      counts[key]++;
      records.push(toRecord(file, node, counts[key]));
    },
  });
  return { records, warnings: [], publishedAt };
}
