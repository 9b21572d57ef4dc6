import { ListParseError } from "../../errors";
import { readCsv } from "../common/csv";
import { isoDate } from "../common/dates";
import type { ParseOutcome, TextFile } from "../common/files";
import { addPart, addRegulation, emptyEuRecord, type EuPart, type EuRecord } from "./types";

const PREFIXES: Record<string, EuPart> = {
  NameAlias: "nameAliases",
  Citizenship: "citizenships",
  BirthDate: "birthdates",
  Identification: "identifications",
  Address: "addresses",
};

/** CSV column suffixes whose XML attribute name is not simply the lower-camel suffix. */
const RENAMED: Record<string, string> = {
  "BirthDate_BirthDate": "birthdate",
  "BirthDate_Day": "dayOfMonth",
  "BirthDate_Month": "monthOfYear",
  "Identification_TypeCode": "identificationTypeCode",
  "Identification_TypeDescription": "identificationTypeDescription",
};

interface PartColumn {
  index: number;
  part: EuPart;
  attr: string;
}

function partColumns(header: readonly string[]): PartColumn[] {
  const out: PartColumn[] = [];
  header.forEach((name, index) => {
    const [prefix, ...rest] = name.split("_");
    const part = PREFIXES[prefix ?? ""];
    if (!part || rest.length === 0 || rest[0] === "Regulation") return;
    const suffix = rest.join("_");
    const attr = RENAMED[name] ?? suffix.charAt(0).toLowerCase() + suffix.slice(1);
    out.push({ index, part, attr });
  });
  return out;
}

/** EU Financial Sanctions File, CSV 1.1: `;`-separated, one row per entity × sub-record. */
export function parseEuCsv(file: TextFile): ParseOutcome<EuRecord> {
  const warnings: string[] = [];
  const rows = readCsv(file.text, { file: file.name, delimiter: ";" });
  const first = rows.next();
  const header = first.done ? undefined : first.value.fields.map((h) => h.replace(/^\ufeff/, "").trim());
  if (!header?.includes("Entity_LogicalId")) {
    throw new ListParseError({ file: file.name, location: "line 1", reason: "header row has no Entity_LogicalId column" });
  }
  const col = (name: string) => header.indexOf(name);
  const idCol = col("Entity_LogicalId");
  const parts = partColumns(header);
  const byId = new Map<string, EuRecord>();
  let publishedAt: string | null = null;
  for (const row of rows) {
    if (row.fields.length !== header.length) {
      throw new ListParseError({
        file: file.name,
        location: `line ${row.line}`,
        reason: `row has ${row.fields.length} fields but the header has ${header.length}${row.terminated ? "" : " (the file may be cut short)"}`,
      });
    }
    if (!row.terminated) warnings.push(`${file.name} line ${row.line}: last row has no line break; check the file is complete`);
    const get = (name: string) => (col(name) < 0 ? "" : (row.fields[col(name)] ?? "").trim());
    const id = (row.fields[idCol] ?? "").trim();
    if (!id) throw new ListParseError({ file: file.name, location: `line ${row.line}`, reason: "empty Entity_LogicalId" });
    const generated = get("fileGenerationDate");
    publishedAt ??= generated ? (isoDate(generated) ?? generated) : null;
    let record = byId.get(id);
    if (!record) {
      record = emptyEuRecord(id, `${file.name} line ${row.line}`);
      record.euReferenceNumber = get("Entity_EU_ReferenceNumber");
      record.unitedNationId = get("Entity_UnitedNationId");
      record.designationDate = get("Entity_DesignationDate");
      record.designationDetails = get("Entity_DesignationDetails");
      record.subjectType = get("Entity_SubjectType") || get("Entity_SubjectType_ClassificationCode");
      byId.set(id, record);
    }
    const remark = get("Entity_Remark");
    if (remark && !record.remarks.includes(remark)) record.remarks.push(remark);
    addRegulation(record, {
      programme: get("Entity_Regulation_Programme"),
      publicationUrl: get("Entity_Regulation_PublicationUrl"),
      numberTitle: get("Entity_Regulation_NumberTitle"),
      publicationDate: get("Entity_Regulation_PublicationDate"),
    });
    const found = new Map<EuPart, Record<string, string>>();
    for (const c of parts) {
      const value = (row.fields[c.index] ?? "").trim();
      if (!value) continue;
      const attrs = found.get(c.part) ?? {};
      attrs[c.attr] = value;
      found.set(c.part, attrs);
    }
    for (const [part, attrs] of found) addPart(record, part, attrs);
  }
  return { records: [...byId.values()], warnings, publishedAt };
}
