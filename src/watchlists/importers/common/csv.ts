import { ListParseError } from "../../errors";

export interface CsvRow {
  fields: string[];
  /** 1-based line where the record starts. */
  line: number;
  /** False only for a last record with no line break after it (a possibly cut file). */
  terminated: boolean;
}

const QUOTE = 34;
const CR = 13;
const LF = 10;
const DOS_EOF = "\x1a";

/**
 * Strict RFC 4180 reader: quoted fields may hold delimiters and line breaks, `""` escapes a
 * quote, and anything else after a closing quote is an error. Blank lines and the DOS EOF
 * marker line are skipped.
 */
export function* readCsv(text: string, opts: { file: string; delimiter: string }): Generator<CsvRow> {
  const delim = opts.delimiter.charCodeAt(0);
  const n = text.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    const startLine = line;
    const fields: string[] = [];
    let terminated = false;
    for (;;) {
      if (i < n && text.charCodeAt(i) === QUOTE) {
        let value = "";
        let from = i + 1;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            throw new ListParseError({
              file: opts.file,
              location: `line ${startLine}`,
              reason: "unterminated quoted field (the file may be cut short)",
            });
          }
          value += text.slice(from, q);
          if (text.charCodeAt(q + 1) === QUOTE) {
            value += '"';
            from = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        line += countNewlines(value);
        fields.push(value);
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === delim || c === CR || c === LF) break;
          j++;
        }
        fields.push(text.slice(i, j));
        i = j;
      }
      if (i >= n) break;
      const c = text.charCodeAt(i);
      if (c === delim) {
        i++;
        continue;
      }
      if (c === CR || c === LF) {
        i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
        line++;
        terminated = true;
        break;
      }
      throw new ListParseError({
        file: opts.file,
        location: `line ${line}`,
        reason: `unexpected character ${JSON.stringify(text[i])} after a closing quote`,
      });
    }
    if (fields.length === 1 && (fields[0] === "" || fields[0] === DOS_EOF)) continue;
    yield { fields, line: startLine, terminated };
  }
}

function countNewlines(value: string): number {
  let count = 0;
  for (let k = value.indexOf("\n"); k >= 0; k = value.indexOf("\n", k + 1)) count++;
  return count;
}

/** True when the text ends with the DOS end-of-file marker OFAC appends to its CSV files. */
export function hasDosEofMarker(text: string): boolean {
  return text.trimEnd().endsWith(DOS_EOF);
}
