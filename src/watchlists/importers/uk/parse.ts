import { ListParseError } from "../../errors";
import { excelSerialToIso, isoDate } from "../common/dates";
import type { ParseOutcome } from "../common/files";
import type { SheetRow } from "../common/xlsx";

/** One OFSI group: every name-variant row published under the same Group ID. */
export interface OfsiRecord {
  location: string;
  groupId: string;
  rows: Record<string, string>[];
}

export const OFSI_REQUIRED_COLUMNS = ["Name 6", "Group ID", "Group Type", "Alias Type"] as const;

/** Cell text as a date: dd/mm/yyyy, or an Excel serial number when a tool re-saved the sheet. */
export function sheetDate(value: string | undefined): string | undefined {
  const v = (value ?? "").trim();
  if (/^\d{4,6}(\.\d+)?$/.test(v) && Number(v) > 3000) return excelSerialToIso(Number(v));
  return isoDate(v);
}

/**
 * OFSI Consolidated List rows (XLSX or CSV, same columns): row 1 "Last Updated" and its date,
 * row 2 the header, then one row per name variant, grouped here by Group ID.
 */
export function parseOfsiRows(file: string, rows: readonly SheetRow[]): ParseOutcome<OfsiRecord> {
  const [first, second] = rows;
  if (!first || (first.cells[0] ?? "").trim() !== "Last Updated") {
    throw new ListParseError({ file, location: "row 1", reason: 'expected "Last Updated" in the first cell' });
  }
  const publishedAt = sheetDate(first.cells[1]) ?? null;
  const header = (second?.cells ?? []).map((h) => h.trim());
  const missing = OFSI_REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new ListParseError({ file, location: `row ${second?.row ?? 2}`, reason: `header lacks ${missing.join(", ")}` });
  }
  const groupCol = header.indexOf("Group ID");
  const groups = new Map<string, OfsiRecord>();
  for (const row of rows.slice(2)) {
    const groupId = (row.cells[groupCol] ?? "").trim();
    if (!groupId) throw new ListParseError({ file, location: `row ${row.row}, column Group ID`, reason: "empty Group ID" });
    const values: Record<string, string> = {};
    header.forEach((name, idx) => {
      const v = (row.cells[idx] ?? "").trim();
      if (v && name) values[name] = v;
    });
    let group = groups.get(groupId);
    if (!group) {
      group = { location: `${file} row ${row.row}`, groupId, rows: [] };
      groups.set(groupId, group);
    }
    group.rows.push(values);
  }
  return { records: [...groups.values()], warnings: [], publishedAt };
}
