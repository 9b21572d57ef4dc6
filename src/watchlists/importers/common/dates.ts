import type { PartialDate } from "../../entity";

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
  january: 1, february: 2, march: 3, april: 4, june: 6, july: 7, august: 8, september: 9, october: 10,
  november: 11, december: 12,
};

const pad = (n: number) => String(n).padStart(2, "0");

function validYear(y: number): boolean {
  return y >= 1000 && y <= 2200;
}

/** "YYYY", "YYYY-MM" or "YYYY-MM-DD" from parts; zero or missing parts truncate the precision. */
export function isoFromParts(year: number, month?: number, day?: number): string | undefined {
  if (!validYear(year)) return undefined;
  if (!month) return String(year);
  if (month < 1 || month > 12) return undefined;
  if (!day) return `${year}-${pad(month)}`;
  if (day < 1 || day > 31) return undefined;
  return `${year}-${pad(month)}-${pad(day)}`;
}

export function monthNumber(name: string): number | undefined {
  return MONTHS[name.toLowerCase().replace(/\.$/, "")];
}

/** One date without range or circa markers, in any of the layouts the lists use. */
function parseSingle(text: string): string | undefined {
  const s = text.trim();
  let m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ].*)?$/.exec(s);
  if (m) return isoFromParts(Number(m[1]), m[2] ? Number(m[2]) : undefined, m[3] ? Number(m[3]) : undefined);
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(s);
  if (m) return isoFromParts(Number(m[3]), Number(m[2]), Number(m[1]));
  m = /^(\d{1,2})[/.-](\d{4})$/.exec(s);
  if (m) return isoFromParts(Number(m[2]), Number(m[1]));
  m = /^(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]{3,9}\.?),? (\d{4})$/.exec(s);
  if (m) {
    const month = monthNumber(m[2] ?? "");
    return month ? isoFromParts(Number(m[3]), month, Number(m[1])) : undefined;
  }
  m = /^([A-Za-z]{3,9}\.?) (\d{1,2}),? (\d{4})$/.exec(s);
  if (m) {
    const month = monthNumber(m[1] ?? "");
    return month ? isoFromParts(Number(m[3]), month, Number(m[2])) : undefined;
  }
  m = /^([A-Za-z]{3,9}\.?),? (\d{4})$/.exec(s);
  if (m) {
    const month = monthNumber(m[1] ?? "");
    return month ? isoFromParts(Number(m[2]), month) : undefined;
  }
  return undefined;
}

const CIRCA = /^(?:circa|ca\.?|c\.|approx(?:imately|\.)?|about|around)\s+/i;

/**
 * Parses a possibly partial, approximate or ranged date: "1961-07-23", "23/07/1961",
 * "00/00/1965", "07/1961", "23 Jul 1961", "Jul 1961", "1961", "circa 1961",
 * "1960 to 1962", "between 1960 and 1962". Returns undefined when the text is not a date.
 */
export function parsePartialDate(text: string | undefined | null): PartialDate | undefined {
  if (!text) return undefined;
  let s = text.trim().replace(/\s+/g, " ");
  let circa = false;
  if (CIRCA.test(s)) {
    circa = true;
    s = s.replace(CIRCA, "");
  }
  const range = /^(\d{4})\s*[-–]\s*(\d{4})$/.exec(s) ?? /^(?:between )?(.+?) (?:to|and|-|–) (?:circa )?(.+)$/i.exec(s);
  if (range) {
    const from = parseSingle(range[1] ?? "");
    const to = parseSingle(range[2] ?? "");
    if (from && to) {
      const yearFrom = Number(from.slice(0, 4));
      const yearTo = Number(to.slice(0, 4));
      return withCirca({ date: String(yearFrom), yearFrom, yearTo }, circa);
    }
    return undefined;
  }
  const date = parseSingle(s);
  return date ? withCirca({ date }, circa) : undefined;
}

function withCirca(date: PartialDate, circa: boolean): PartialDate {
  return circa ? { ...date, circa: true } : date;
}

/** "dd/mm/yyyy" or "dd-mm-yyyy" (UK lists) or ISO, as an ISO date; partial zeros truncate. */
export function isoDate(text: string | undefined | null): string | undefined {
  if (!text) return undefined;
  return parseSingle(text.trim());
}

/** Converts an Excel serial day number (1900 date system) to an ISO date. */
export function excelSerialToIso(serial: number): string | undefined {
  if (!Number.isFinite(serial) || serial < 1) return undefined;
  const ms = Math.round((serial - 25569) * 86_400_000);
  return new Date(ms).toISOString().slice(0, 10);
}

/** The later of two ISO dates or date-times (string order works for ISO). */
export function laterDate(a: string | null, b: string | null | undefined): string | null {
  if (!b) return a;
  if (!a) return b;
  return b > a ? b : a;
}
