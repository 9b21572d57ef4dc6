import Papa from "papaparse";

/**
 * CSV for spreadsheets. Cells that a spreadsheet would run as a formula (starting with = + - @, tab
 * or carriage return) are prefixed with a single quote: a list export must never execute content
 * that came from a watchlist, a subject name or a note. Cells holding a semicolon or a tab are
 * quoted as well: a spreadsheet in a locale that separates with ";" (or a tab-separated import)
 * would otherwise split ";=1" into a cell starting with "=" that the prefix never saw.
 */
export function toCsv(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<unknown>>): string {
  const data = rows.map((row) => row.map(cellText));
  // With no rows, papaparse writes the header and a line break of its own ("a,b\r\n", an empty
  // record after it once ours is added), so the header goes alone: an empty export is one line.
  const input = data.length === 0 ? [[...header]] : { fields: [...header], data };
  return `${Papa.unparse(input, { escapeFormulae: /^[=+\-@\t\r]/, quotes: quoteSeparators, newline: "\r\n" })}\r\n`;
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
