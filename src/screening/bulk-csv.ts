import { toCsv } from "@/exports/csv";
import type { BulkResult } from "./bulk";

export const BULK_CSV_COLUMNS = [
  "index",
  "status",
  "userReference",
  "fullName",
  "screeningId",
  "decision",
  "isMatch",
  "score",
  "riskScore",
  "riskBand",
  "classification",
  "matchCount",
  "sourceLists",
  "pepTiers",
  "adverseMediaStatus",
  "errorCode",
  "errorDetail",
] as const;

/**
 * The bulk result as a spreadsheet: one line per input row, in input order. It carries fullName (the
 * caller's own data) so a reviewer can read it without the request at hand, and goes through the
 * formula-safe writer because that name is untrusted text. Lists are joined with ";".
 */
export function bulkCsv(result: BulkResult): string {
  return toCsv(
    BULK_CSV_COLUMNS,
    result.rows.map((row) => [
      row.index,
      row.status,
      row.userReference,
      result.subjects.get(row.index)?.fullName ?? null,
      row.screeningId,
      row.decision,
      row.isMatch,
      row.score,
      row.riskScore,
      row.riskBand,
      row.classification,
      row.matchCount,
      row.sourceLists.join(";"),
      row.pepTiers.join(";"),
      row.adverseMediaStatus,
      row.error?.code ?? null,
      row.error ? [row.error.detail, ...row.error.errors.map((e) => `${e.field}: ${e.message}`)].join(" ") : null,
    ]),
  );
}
