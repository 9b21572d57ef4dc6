import { decodeHead, sniffEncoding, type TextEncodingName } from "./decode";
import type { SourceList } from "./entity";
import { ListParseError } from "./errors";
import { readCsv } from "./importers/common/csv";
import { listZipEntries, readOptionalZipEntries, isZip } from "./importers/common/zip";

export type ListFormat =
  | "ofac-csv-main"
  | "ofac-csv-add"
  | "ofac-csv-alt"
  | "ofac-csv-comments"
  | "ofac-xml"
  | "ofac-advanced-xml"
  | "un-xml"
  | "eu-xml"
  | "eu-csv"
  | "uk-ofsi-xlsx"
  | "uk-ofsi-ods"
  | "uk-ofsi-csv"
  | "uk-fcdo-summary-ods"
  | "uk-fcdo-summary-xlsx"
  | "uk-fcdo-summary-csv"
  | "wikidata-json"
  | "wikidata-labels"
  | "ftm-json";

export interface Detection {
  source: SourceList;
  format: ListFormat;
  /** Text encoding for text formats; absent for zip containers. */
  encoding?: TextEncodingName;
}

const SOURCE_OF: Record<ListFormat, SourceList> = {
  "ofac-csv-main": "OFAC",
  "ofac-csv-add": "OFAC",
  "ofac-csv-alt": "OFAC",
  "ofac-csv-comments": "OFAC",
  "ofac-xml": "OFAC",
  "ofac-advanced-xml": "OFAC",
  "un-xml": "UN",
  "eu-xml": "EU",
  "eu-csv": "EU",
  "uk-ofsi-xlsx": "UK",
  "uk-ofsi-ods": "UK",
  "uk-ofsi-csv": "UK",
  "uk-fcdo-summary-ods": "UK",
  "uk-fcdo-summary-xlsx": "UK",
  "uk-fcdo-summary-csv": "UK",
  "wikidata-json": "WIKIDATA",
  "wikidata-labels": "WIKIDATA",
  "ftm-json": "WIKIDATA",
};

function found(format: ListFormat, encoding?: TextEncodingName): Detection {
  return encoding ? { source: SOURCE_OF[format], format, encoding } : { source: SOURCE_OF[format], format };
}

function unknown(file: string, reason: string): never {
  throw new ListParseError({ file, location: "start of file", reason });
}

const OFSI_MARKERS = ["Group ID", "Name 6", "Alias Type"];
const FCDO_SUMMARY_MARKERS = ["Unique ID", "OFSI Group ID", "Regime Name", "Date Designated"];
const hasAll = (text: string, markers: readonly string[]) => markers.every((m) => text.includes(m));

function detectSpreadsheet(name: string, bytes: Uint8Array): Detection {
  const entries = listZipEntries(name, bytes);
  const isOds = entries.includes("content.xml") && entries.includes("mimetype");
  const isXlsx = entries.includes("xl/workbook.xml");
  if (!isOds && !isXlsx) return unknown(name, "zip archive that is neither an XLSX nor an ODS spreadsheet");
  const wanted = isOds ? ["content.xml"] : entries.includes("xl/sharedStrings.xml") ? ["xl/sharedStrings.xml"] : ["xl/worksheets/sheet1.xml"];
  const text = [...readOptionalZipEntries(name, bytes, wanted).values()].map((b) => decodeHead(b, 256 * 1024)).join("\n");
  if (hasAll(text, OFSI_MARKERS) && text.includes("Last Updated")) return found(isOds ? "uk-ofsi-ods" : "uk-ofsi-xlsx");
  if (hasAll(text, FCDO_SUMMARY_MARKERS)) return found(isOds ? "uk-fcdo-summary-ods" : "uk-fcdo-summary-xlsx");
  return unknown(name, "spreadsheet without the OFSI Consolidated List or FCDO UK Sanctions List columns");
}

function rootElement(head: string): { name: string; tag: string } | undefined {
  const body = head.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g, "");
  const m = /<([A-Za-z_][\w.:-]*)([^>]*)>/.exec(body);
  if (!m) return undefined;
  const name = m[1] ?? "";
  return { name: name.slice(name.indexOf(":") + 1), tag: m[0] };
}

function detectXml(name: string, head: string, encoding: TextEncodingName): Detection {
  const root = rootElement(head);
  if (!root) return unknown(name, "XML without a root element");
  switch (root.name) {
    case "sdnList":
      return found("ofac-xml", encoding);
    case "Sanctions":
      if (/ReferenceValueSets|DateOfIssue|DistinctParties/.test(head)) return found("ofac-advanced-xml", encoding);
      break;
    case "CONSOLIDATED_LIST":
      return found("un-xml", encoding);
    case "export":
      if (/fsd\/export|sanctionEntity/.test(head)) return found("eu-xml", encoding);
      break;
    case "Designations":
      return unknown(name, "FCDO UK Sanctions List full XML is recognised but not supported; use the OFSI ConList or the FCDO summary export");
  }
  return unknown(name, `XML root element <${root.name}> is not a known sanctions list`);
}

function detectJson(name: string, head: string, encoding: TextEncodingName): Detection {
  const firstLine = head.split("\n").find((l) => l.trim() !== "" && l.trim() !== "[") ?? "";
  if (/"schema"\s*:\s*"[A-Z]\w*"/.test(firstLine) && /"properties"\s*:/.test(firstLine)) return found("ftm-json", encoding);
  if (/"claims"\s*:/.test(head)) return found("wikidata-json", encoding);
  if (/"labels"\s*:/.test(head) && /"(?:entities|id)"\s*:/.test(head)) return found("wikidata-labels", encoding);
  return unknown(name, "JSON that is neither Wikidata entity JSON nor FollowTheMoney line-JSON");
}

const OFAC_SHAPES: Record<number, ListFormat> = { 12: "ofac-csv-main", 6: "ofac-csv-add", 5: "ofac-csv-alt", 2: "ofac-csv-comments" };

function detectCsv(name: string, head: string, encoding: TextEncodingName): Detection {
  const nl = head.search(/\r?\n/);
  const firstLine = nl < 0 ? head : head.slice(0, nl);
  if (/^"?Last Updated"?[,;]/.test(firstLine) && hasAll(head, OFSI_MARKERS)) return found("uk-ofsi-csv", encoding);
  if (firstLine.includes("Entity_LogicalId")) return found("eu-csv", encoding);
  if (hasAll(firstLine, FCDO_SUMMARY_MARKERS)) return found("uk-fcdo-summary-csv", encoding);
  if (/^"?Report Date/i.test(firstLine)) {
    return unknown(name, "FCDO UK Sanctions List full CSV is recognised but not supported; use the OFSI ConList or the FCDO summary export");
  }
  let first: string[] | undefined;
  try {
    first = readCsv(head, { file: name, delimiter: "," }).next().value?.fields;
  } catch {
    first = undefined;
  }
  const shape = first && /^\d+$/.test((first[0] ?? "").trim()) ? OFAC_SHAPES[first.length] : undefined;
  if (shape === "ofac-csv-main" && !/^(individual|vessel|aircraft|-0-)\s*$/i.test(first?.[2] ?? "")) return unknown(name, "CSV with 12 columns but no OFAC SDN_Type");
  if (shape === "ofac-csv-alt" && !/^(aka|fka|nka)$/i.test((first?.[2] ?? "").trim())) return unknown(name, "CSV with 5 columns but no OFAC alt_type");
  if (shape) return found(shape, encoding);
  return unknown(name, "text file that is not a known sanctions or PEP list format");
}

/**
 * Detects a list file's source and format from its content alone (names are never trusted):
 * zip entries for XLSX/ODS, the XML root element, the JSON shape, or the CSV first row.
 */
export function detectListFile(file: { name: string; bytes: Uint8Array }): Detection {
  const { name, bytes } = file;
  if (bytes.length === 0) return unknown(name, "empty file");
  if (isZip(bytes)) return detectSpreadsheet(name, bytes);
  const { encoding } = sniffEncoding(bytes);
  const head = decodeHead(bytes, 64 * 1024);
  if (encoding !== "utf-16le" && encoding !== "utf-16be" && head.includes("\u0000")) return unknown(name, "binary file");
  const start = head.trimStart();
  if (start.startsWith("<")) return detectXml(name, start, encoding);
  if (start.startsWith("{") || start.startsWith("[")) return detectJson(name, start, encoding);
  return detectCsv(name, start, encoding);
}
