import Papa from "papaparse";

/**
 * CSV for spreadsheets. Cells that a spreadsheet would run as a formula (starting with = + - @, tab
 * or carriage return) are prefixed with a single quote: a list export must never execute content
 * that came from a watchlist, a subject name or a note. Cells holding a semicolon or a tab are
 * quoted as well: a spreadsheet in a locale that separates with ";" (or a tab-separated import)
 * would otherwise split ";=1" into a cell starting with "=" that the prefix never saw.
 */
export function toCsv(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<unknown>>): string {
  // An empty export is the header line alone.
  return csvLines([header]) + csvLines(rows);
}

/**
 * Rows as CSV lines, each ended by CRLF, with the same quoting and formula guard as toCsv: an export
 * written in parts (a header line, then a page of rows at a time) is byte for byte the toCsv of the
 * whole. No rows, no text (papaparse alone would write a line break for an empty record).
 */
export function csvLines(rows: ReadonlyArray<ReadonlyArray<unknown>>): string {
  if (rows.length === 0) return "";
  const data = rows.map((row) => row.map(cellText));
  return `${Papa.unparse(data, { escapeFormulae: /^[=+\-@\t\r]/, quotes: quoteSeparators, newline: "\r\n", header: false })}\r\n`;
}

/** Papa's per-cell quoting rule (on top of its own: commas, quotes, line breaks, edge spaces). */
function quoteSeparators(value: unknown): boolean {
  return typeof value === "string" && (value.includes(";") || value.includes("\t"));
}

/** Numbers and booleans stay typed so papaparse leaves a negative number alone; objects become JSON text. */
function cellText(value: unknown): string | number | boolean {
  if (value === null || value === undefined) return "";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return JSON.stringify(value);
}
