import Papa from "papaparse";
import { ServiceError } from "@/errors";
import { iJsonProblem } from "@/lib/i-json";
import { hasNameColumns, subjectFromColumns, unknownColumns } from "./columns";

export type SubjectFileFormat = "jsonl" | "csv";

export interface SubjectFileRow {
  /** 1-based line (JSONL) or data row (CSV, header excluded) in the file. */
  line: number;
  /** Raw subject fields, validated later by the Subject schema; a JSONL line that is not JSON is an Error. */
  input: unknown;
}

export function formatFromName(name: string): SubjectFileFormat {
  return /\.csv$/i.test(name) ? "csv" : "jsonl";
}

/** Parses a subjects file: JSON Lines (one Subject object per line) or CSV with the spec's columns. */
export function parseSubjectFile(text: string, format: SubjectFileFormat): { rows: SubjectFileRow[]; warnings: string[] } {
  const body = text.replace(/^\uFEFF/, "");
  if (format === "jsonl") {
    const rows: SubjectFileRow[] = [];
    body.split(/\r?\n/).forEach((raw, i) => {
      if (raw.trim() === "") return;
      let input: unknown;
      try {
        input = JSON.parse(raw) as unknown;
      } catch (error) {
        rows.push({ line: i + 1, input: new Error(`line ${i + 1} is not JSON: ${(error as Error).message}`) });
        return;
      }
      // As over HTTP (http/media.ts): a member named twice or a lone surrogate refuses the line.
      const refused = iJsonProblem(raw, input);
      const line = `line ${i + 1}`;
      if (refused === null) rows.push({ line: i + 1, input });
      else if (refused.kind === "loneSurrogate") rows.push({ line: i + 1, input: new Error(`${line} is not valid JSON text: ${refused.detail}`) });
      else rows.push({ line: i + 1, input: new Error(`${line} names ${JSON.stringify(refused.key)} twice in one object (at ${refused.path})`) });
    });
    return { rows, warnings: [] };
  }
  const parsed = Papa.parse<Record<string, string>>(body, { header: true, skipEmptyLines: "greedy" });
  const headers = parsed.meta.fields ?? [];
  if (!hasNameColumns(headers)) {
    throw new ServiceError("INVALID_INPUT", "The CSV needs a fullName or name column, or First Name and Last Name columns.");
  }
  // A quote never closed, or closed and then followed by more text ("Boris"x), swallows the lines
  // after it into one cell: the subjects on them would go unscreened while the count said "screened
  // 0 of 1". Papaparse's row for these is off by one, so the line is counted from the quote's place.
  const badQuote = parsed.errors.find((e) => e.code === "MissingQuotes" || e.code === "InvalidQuotes");
  if (badQuote) {
    const line = body.slice(0, badQuote.index ?? 0).split("\n").length;
    const what = badQuote.code === "MissingQuotes" ? `a quoted field that is never closed, opened on line ${line}` : `a quoted field with text after its closing quote, on line ${line}`;
    throw new ServiceError(
      "INVALID_INPUT",
      `The CSV has ${what}: the lines after it would be read as part of that one cell, so nothing was screened. Quote the whole value, and write a quote inside it twice ("")`,
    );
  }
  const warnings = unknownColumns(headers).map((h) => `column "${h}" is not a subject field and is ignored`);
  // A row with more fields than the header lost some of them ("Putin, Vladimir" unquoted in a file of
  // one column is read as "Putin"): screened, a truncated name could come back Clear, so the row is
  // refused. Fewer fields only leave trailing columns empty, and a file of one column has no
  // delimiter to detect: neither changes what is read, and only the first is worth a warning.
  const tooMany = new Map<number, string>();
  for (const error of parsed.errors) {
    if (error.code === "TooManyFields" && error.row !== undefined) tooMany.set(error.row, error.message);
  }
  const problems = parsed.errors.filter((e) => e.code !== "UndetectableDelimiter" && e.code !== "TooManyFields");
  for (const error of problems.slice(0, 20)) warnings.push(`CSV row ${(error.row ?? 0) + 1}: ${error.message}`);
  const rows = parsed.data.map((record, i): SubjectFileRow => {
    const extra = tooMany.get(i);
    if (extra === undefined) return { line: i + 1, input: subjectFromColumns(record) };
    return { line: i + 1, input: new Error(`CSV row ${i + 1} has more fields than the header (${extra}): quote a value that holds a comma ("Putin, Vladimir")`) };
  });
  return { rows, warnings };
}
