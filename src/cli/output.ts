import { showControlCharacters } from "@/lib/control-characters";

/** Prints rows as an aligned text table (default) or JSON (--json) for scripts. */
export function printTable(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]): void {
  if (rows.length === 0) {
    console.log("(none)");
    return;
  }
  const cells = rows.map((row) => columns.map((c) => display(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (values: readonly string[]) => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  console.log(line(columns));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const r of cells) console.log(line(r));
}

/** Key/value pairs for a single record. */
export function printRecord(record: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) console.log(`${key.padEnd(width)}  ${display(value)}`);
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/**
 * A cell as text. Control characters are shown as U+FFFD: input refuses them, but a row written by an
 * older version, or edited in the database, must not rewrite the terminal (ESC) or forge a line.
 */
function display(value: unknown): string {
  // An empty list is "none set" as much as null is: a blank cell read as a value lost.
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return "-";
  // JSON escapes C0 controls but not DEL or C1 (U+009B is an 8-bit CSI), so objects are shown through it too.
  const text = Array.isArray(value) ? value.join(",") : typeof value === "object" ? JSON.stringify(value) : String(value);
  return showControlCharacters(text);
}
