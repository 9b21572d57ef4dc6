import { toCsv } from "@/exports/csv";
import type { BulkResult } from "./bulk";
import { showControlCharacters } from "@/lib/control-characters";
import { MAX_NAME_LENGTH } from "./subject";

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
  // Added after the others, so that a reader of the earlier columns by position is not misled.
  "listsNotLoaded",
  "listsStale",
] as const;

/**
 * The fullName a failed row was sent with, for display: trimmed as a valid name would be, control
 * characters made visible, and cut at MAX_NAME_LENGTH characters (with "…"), so an over-long name
 * cannot swell the sheet.
 */
export function displaySentName(sent: string): string {
  // Controls (a NUL, an escape) shown as U+FFFD, so a refused name stays visible and cannot garble the sheet.
  const text = showControlCharacters(sent.trim());
  // Counted in characters (code points), as validation counts a name's length: 300 × "𝔞" is 600
  // UTF-16 units and shows whole. The length test in units first: no name within it can be over.
  if (text.length <= MAX_NAME_LENGTH) return text;
  const characters = Array.from(text);
  if (characters.length <= MAX_NAME_LENGTH) return text;
  return `${characters.slice(0, MAX_NAME_LENGTH).join("")}…`;
}

/**
 * The bulk result as a spreadsheet: one line per input row, in input order. It carries fullName (the
 * caller's own data) so a reviewer can read it without the request at hand: the validated name, or
 * for a row that failed validation the name as sent (when it was a string). It goes through the
 * formula-safe writer because that name is untrusted text. Lists are joined with ";".
 */
export function bulkCsv(result: BulkResult): string {
  return toCsv(
    BULK_CSV_COLUMNS,
    result.rows.map((row) => [
      row.index,
      row.status,
      row.userReference,
      fullNameCell(result, row.index),
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
      // A validation failure's detail already lists every field issue.
      row.error?.detail ?? null,
      row.listsNotLoaded?.join(";") ?? null,
      row.listsStale?.join(";") ?? null,
    ]),
  );
}

function fullNameCell(result: BulkResult, index: number): string | null {
  const valid = result.subjects.get(index);
  if (valid) return valid.fullName;
  const sent = result.sentNames.get(index);
  return sent === undefined ? null : displaySentName(sent);
}
