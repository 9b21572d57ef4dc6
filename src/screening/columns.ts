import type { SubjectInput } from "./subject";

/**
 * Maps one row of an uploaded table (CSV or XLSX header → cell) to Subject fields, as the spec's file
 * columns say: fullName or name, OR First Name plus Last Name; optional dateOfBirth, nationality,
 * aliases (semicolon-separated) and userReference. Header matching ignores case, spaces, underscores
 * and hyphens ("First Name", "first_name" and "FIRSTNAME" are one column). Empty cells are absent.
 * The result still goes through the Subject schema, so a row without a name fails there, by field.
 * A Map, not an object: a header read as "constructor" or "toString" must be an unknown column, not
 * one of Object.prototype's members.
 */
const COLUMN_ALIASES = new Map<string, keyof SubjectInput | "firstName" | "lastName">([
  ["fullname", "fullName"],
  ["name", "fullName"],
  ["firstname", "firstName"],
  ["givenname", "firstName"],
  ["lastname", "lastName"],
  ["surname", "lastName"],
  ["familyname", "lastName"],
  ["dateofbirth", "dateOfBirth"],
  ["dob", "dateOfBirth"],
  ["nationality", "nationality"],
  ["aliases", "aliases"],
  ["userreference", "userReference"],
]);

export function columnKey(header: string): string {
  return header.toLowerCase().replace(/[\s_-]+/g, "");
}

/** Headers no column rule knows: reported to the caller, since a typo would silently drop data. */
export function unknownColumns(headers: readonly string[]): string[] {
  return headers.filter((h) => h.trim() !== "" && !COLUMN_ALIASES.has(columnKey(h)));
}

/** True when the headers can produce a name: a fullName/name column, or first and last name columns. */
export function hasNameColumns(headers: readonly string[]): boolean {
  const targets = new Set(headers.map((h) => COLUMN_ALIASES.get(columnKey(h))));
  return targets.has("fullName") || (targets.has("firstName") && targets.has("lastName"));
}

export function subjectFromColumns(row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields: Record<string, string> = {};
  for (const [header, raw] of Object.entries(row)) {
    const target = COLUMN_ALIASES.get(columnKey(header));
    const value = raw === null || raw === undefined ? "" : String(raw).trim();
    if (target && value !== "" && fields[target] === undefined) fields[target] = value;
  }
  const { firstName, lastName, aliases, ...rest } = fields;
  const subject: Record<string, unknown> = { ...rest };
  if (subject.fullName === undefined && (firstName || lastName)) subject.fullName = [firstName, lastName].filter(Boolean).join(" ");
  if (aliases) subject.aliases = aliases.split(";").map((a) => a.trim()).filter(Boolean);
  return subject;
}
