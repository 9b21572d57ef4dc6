import type { PartialDate } from "../watchlists/entity";

/** A birth date reduced to what comparison needs. Month and day are 0 when unknown. */
export interface DateRange {
  readonly yearFrom: number;
  readonly yearTo: number;
  readonly month: number;
  readonly day: number;
}

/** How a subject's date of birth relates to a listed entity's dates of birth. */
export type DobRelation = "exact" | "year" | "near" | "mismatch" | "unknown";

const ISO_RE = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/;
const DMY_RE = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/;

function valid(year: number, month: number, day: number): boolean {
  return year >= 1000 && year <= 2999 && month >= 0 && month <= 12 && day >= 0 && day <= 31;
}

/** Parses "1965", "1965-03", "1965-03-21" (ISO) or "21/03/1965", "21.03.1965" (day first). */
export function parseDate(text: string): DateRange | null {
  const s = text.trim();
  const dmy = DMY_RE.exec(s);
  if (dmy) {
    const [year, month, day] = [Number(dmy[3]), Number(dmy[2]), Number(dmy[1])];
    return valid(year, month, day) ? { yearFrom: year, yearTo: year, month, day } : null;
  }
  const iso = ISO_RE.exec(s);
  if (!iso) return null;
  const year = Number(iso[1]);
  const month = iso[2] ? Number(iso[2]) : 0;
  const day = iso[3] ? Number(iso[3]) : 0;
  return valid(year, month, day) ? { yearFrom: year, yearTo: year, month, day } : null;
}

/** A listed date of birth; ranges keep their bounds, "circa" widens the year by one each way. */
export function birthRange(birth: PartialDate): DateRange | null {
  const parsed = parseDate(birth.date);
  if (!parsed) return null;
  let from = birth.yearFrom ?? parsed.yearFrom;
  let to = birth.yearTo ?? parsed.yearTo;
  if (birth.circa) {
    from -= 1;
    to += 1;
  }
  const exactYear = from === to;
  return { yearFrom: from, yearTo: to, month: exactYear ? parsed.month : 0, day: exactYear ? parsed.day : 0 };
}

const RANK: Record<DobRelation, number> = { unknown: 0, mismatch: 1, near: 2, year: 3, exact: 4 };

function relate(q: DateRange, r: DateRange, tolerance: number): DobRelation {
  const year = q.yearFrom;
  if (year >= r.yearFrom && year <= r.yearTo) {
    if (r.yearFrom !== r.yearTo || q.month === 0 || r.month === 0) return "year";
    if (q.month !== r.month) return "near";
    if (q.day === 0 || r.day === 0) return "year";
    return q.day === r.day ? "exact" : "near";
  }
  const distance = year < r.yearFrom ? r.yearFrom - year : year - r.yearTo;
  return distance <= tolerance ? "near" : "mismatch";
}

/** The best relation over all listed dates; "unknown" when either side has none. */
export function compareDob(query: DateRange | null, listed: readonly DateRange[], tolerance: number): DobRelation {
  if (!query || listed.length === 0) return "unknown";
  let best: DobRelation = "mismatch";
  for (const r of listed) {
    const rel = relate(query, r, tolerance);
    if (RANK[rel] > RANK[best]) best = rel;
  }
  return best;
}
