import { ListParseError } from "../../errors";
import { isoDate, laterDate } from "../common/dates";
import type { ParseOutcome } from "../common/files";
import type { SheetRow } from "../common/xlsx";

/** One designation of the FCDO UK Sanctions List summary export. */
export interface FcdoSummaryRecord {
  location: string;
  uniqueId: string;
  groupId: string;
  name: string;
  regimes: string[];
  type: string;
  source: string;
  dateDesignated: string;
  sanctions: string;
}

const COLUMNS = ["Unique ID", "OFSI Group ID", "Name", "Regime Name", "Type", "Designation source", "Date Designated", "Sanctions Imposed"];

/**
 * The 8-column FCDO UK Sanctions List summary (ODS). It has no generation date, so the
 * publication date is the latest Date Designated.
 */
export function parseFcdoSummary(file: string, rows: readonly SheetRow[]): ParseOutcome<FcdoSummaryRecord> {
  const [head, ...data] = rows;
  const header = (head?.cells ?? []).map((h) => h.trim());
  const missing = COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new ListParseError({ file, location: `row ${head?.row ?? 1}`, reason: `header lacks ${missing.join(", ")}` });
  }
  const col = (row: SheetRow, name: string) => (row.cells[header.indexOf(name)] ?? "").trim();
  const byId = new Map<string, FcdoSummaryRecord>();
  const warnings: string[] = [];
  let publishedAt: string | null = null;
  for (const row of data) {
    const uniqueId = col(row, "Unique ID");
    if (!uniqueId) throw new ListParseError({ file, location: `row ${row.row}, column Unique ID`, reason: "empty Unique ID" });
    const date = col(row, "Date Designated");
    const iso = isoDate(date);
    if (date && !iso) warnings.push(`${file} row ${row.row}: Date Designated ${JSON.stringify(date)} is not a date`);
    publishedAt = laterDate(publishedAt, iso);
    const regime = col(row, "Regime Name");
    const existing = byId.get(uniqueId);
    if (existing) {
      if (regime && !existing.regimes.includes(regime)) existing.regimes.push(regime);
      continue;
    }
    byId.set(uniqueId, {
      location: `${file} row ${row.row} (Unique ID ${uniqueId})`,
      uniqueId,
      groupId: col(row, "OFSI Group ID"),
      name: col(row, "Name"),
      regimes: regime ? [regime] : [],
      type: col(row, "Type"),
      source: col(row, "Designation source"),
      dateDesignated: iso ?? "",
      sanctions: col(row, "Sanctions Imposed"),
    });
  }
  return { records: [...byId.values()], warnings, publishedAt };
}
