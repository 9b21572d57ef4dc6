import Papa from "papaparse";
import { ServiceError } from "@/errors";
import { firstDuplicateKey } from "@/lib/json-duplicate-keys";
import { firstLoneSurrogate, loneSurrogateDetail } from "@/lib/json-lone-surrogates";
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
      rows.push({ line: i + 1, input: jsonLineProblem(raw, input, i + 1) ?? input });
    });
    return { rows, warnings: [] };
  }
  const parsed = Papa.parse<Record<string, string>>(body, { header: true, skipEmptyLines: "greedy" });
  const headers = parsed.meta.fields ?? [];
  if (!hasNameColumns(headers)) {
    throw new ServiceError("INVALID_INPUT", "The CSV needs a fullName or name column, or First Name and Last Name columns.");
  }
  const warnings = unknownColumns(headers).map((h) => `column "${h}" is not a subject field and is ignored`);
  for (const error of parsed.errors.slice(0, 20)) warnings.push(`CSV row ${(error.row ?? 0) + 1}: ${error.message}`);
  return { rows: parsed.data.map((record, i) => ({ line: i + 1, input: subjectFromColumns(record) })), warnings };
}

/**
 * As over HTTP (http/media.ts, readJsonText): a line that names a member twice (which was meant is in
 * doubt) or escapes a lone surrogate (stored as U+FFFD, a value the file never held) is refused.
 */
function jsonLineProblem(raw: string, input: unknown, line: number): Error | null {
  const repeated = typeof input === "object" && input !== null ? firstDuplicateKey(raw) : null;
  if (repeated) return new Error(`line ${line} names ${JSON.stringify(repeated.key)} twice in one object (at ${repeated.path})`);
  const broken = firstLoneSurrogate(raw, input);
  return broken === null ? null : new Error(`line ${line} is not valid JSON text: ${loneSurrogateDetail(broken)}`);
}
