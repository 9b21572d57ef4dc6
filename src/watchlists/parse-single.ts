import { decodeChunks, decodeText } from "./decode";
import type { Detection } from "./detect";
import type { ParsedList } from "./entity";
import { ListParseError } from "./errors";
import { readCsv } from "./importers/common/csv";
import { toParsedList } from "./importers/common/list";
import { readOdsRows } from "./importers/common/ods";
import { readXlsxRows, type SheetRow } from "./importers/common/xlsx";
import { mapEuRecord } from "./importers/eu/map";
import { parseEuXml } from "./importers/eu/parse";
import { parseEuCsv } from "./importers/eu/parse-csv";
import { mapOfacRecord } from "./importers/ofac/map";
import { parseOfacAdvancedXml } from "./importers/ofac/parse-advanced";
import { parseOfacXml } from "./importers/ofac/parse-xml";
import { mapUnRecord } from "./importers/un/map";
import { parseUnXml } from "./importers/un/parse";
import { mapFcdoSummaryRecord, mapOfsiRecord } from "./importers/uk/map";
import { parseOfsiRows } from "./importers/uk/parse";
import { parseFcdoSummary } from "./importers/uk/parse-fcdo";

export interface ListFile {
  name: string;
  bytes: Uint8Array;
}

/** CSV rows as spreadsheet rows; a last record cut short (no line break, fewer fields) is an error. */
function csvSheetRows(file: ListFile): SheetRow[] {
  const rows: SheetRow[] = [];
  let width = 0;
  for (const row of readCsv(decodeText(file.bytes).text, { file: file.name, delimiter: "," })) {
    if (!row.terminated && row.fields.length < width) {
      throw new ListParseError({ file: file.name, location: `line ${row.line}`, reason: "the file ends in the middle of a record; it may be cut short" });
    }
    width = Math.max(width, row.fields.length);
    rows.push({ row: row.line, cells: row.fields });
  }
  return rows;
}

function sheetRows(file: ListFile, format: string): SheetRow[] {
  if (format.endsWith("-xlsx")) return readXlsxRows(file.name, file.bytes);
  if (format.endsWith("-ods")) return readOdsRows(file.name, file.bytes);
  return csvSheetRows(file);
}

/** Parses and maps a list that is complete in one file (everything but OFAC CSV sets and PEP files). */
export function parseSingleFile(file: ListFile, detection: Detection): ParsedList {
  const { name } = file;
  const chunks = () => decodeChunks(file.bytes);
  const list = (): Omit<ParsedList, "files"> => {
    switch (detection.format) {
      case "ofac-xml":
        return toParsedList({ source: "OFAC", format: "ofac-xml", outcome: parseOfacXml(name, chunks), map: mapOfacRecord });
      case "ofac-advanced-xml":
        return toParsedList({ source: "OFAC", format: "ofac-advanced-xml", outcome: parseOfacAdvancedXml(name, chunks), map: mapOfacRecord });
      case "un-xml":
        return toParsedList({ source: "UN", format: "un-xml", outcome: parseUnXml(name, chunks), map: mapUnRecord });
      case "eu-xml":
        return toParsedList({ source: "EU", format: "eu-xml-1.1", outcome: parseEuXml(name, chunks), map: mapEuRecord });
      case "eu-csv":
        return toParsedList({ source: "EU", format: "eu-csv-1.1", outcome: parseEuCsv({ name, text: decodeText(file.bytes).text }), map: mapEuRecord });
      case "uk-ofsi-xlsx":
      case "uk-ofsi-ods":
      case "uk-ofsi-csv":
        return toParsedList({ source: "UK", format: detection.format, outcome: parseOfsiRows(name, sheetRows(file, detection.format)), map: mapOfsiRecord });
      case "uk-fcdo-summary-ods":
      case "uk-fcdo-summary-xlsx":
      case "uk-fcdo-summary-csv":
        return toParsedList({
          source: "UK",
          format: detection.format,
          outcome: parseFcdoSummary(name, sheetRows(file, detection.format)),
          map: mapFcdoSummaryRecord,
        });
      default:
        throw new ListParseError({ file: name, location: "whole file", reason: `format ${detection.format} needs its companion files` });
    }
  };
  return { ...list(), files: [name] };
}
