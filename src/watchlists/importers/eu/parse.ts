import { ListParseError } from "../../errors";
import type { ParseOutcome } from "../common/files";
import { child, readXml, type XmlNode } from "../common/xml";
import { addPart, addRegulation, emptyEuRecord, type EuPart, type EuRecord } from "./types";

const PARTS: Record<string, EuPart> = {
  nameAlias: "nameAliases",
  citizenship: "citizenships",
  birthdate: "birthdates",
  identification: "identifications",
  address: "addresses",
};

function toRecord(file: string, node: XmlNode, index: number): EuRecord {
  const where = `element /export/sanctionEntity[${index}]`;
  const logicalId = (node.attrs.logicalId ?? "").trim();
  if (!logicalId) throw new ListParseError({ file, location: where, reason: "sanctionEntity without logicalId" });
  const record = emptyEuRecord(logicalId, `${file} ${where}`);
  record.euReferenceNumber = node.attrs.euReferenceNumber ?? "";
  record.unitedNationId = node.attrs.unitedNationId ?? "";
  record.designationDate = node.attrs.designationDate ?? "";
  record.designationDetails = node.attrs.designationDetails ?? "";
  for (const c of node.children) {
    const part = PARTS[c.name];
    if (part) addPart(record, part, { ...c.attrs });
    else if (c.name === "remark" && c.text.trim()) record.remarks.push(c.text.trim());
    else if (c.name === "subjectType") record.subjectType = c.attrs.code || c.attrs.classificationCode || "";
    else if (c.name === "regulation") {
      addRegulation(record, {
        programme: c.attrs.programme ?? "",
        publicationUrl: (child(c, "publicationUrl")?.text ?? "").trim(),
        numberTitle: c.attrs.numberTitle ?? "",
        publicationDate: c.attrs.publicationDate ?? "",
      });
    }
  }
  return record;
}

/** EU Financial Sanctions File, XML 1.1 (root `export`, any namespace). */
export function parseEuXml(file: string, chunks: () => Iterable<string>): ParseOutcome<EuRecord> {
  const records: EuRecord[] = [];
  let publishedAt: string | null = null;
  readXml(chunks, {
    file,
    onRoot: (name, attrs) => {
      if (name !== "export") throw new ListParseError({ file, location: "root element", reason: `expected export, found ${name}` });
      publishedAt = attrs.generationDate?.trim() || null;
    },
    capture: (path, name) => path.length === 1 && name === "sanctionEntity",
    onNode: (node) => records.push(toRecord(file, node, records.length + 1)),
  });
  return { records, warnings: [], publishedAt };
}
