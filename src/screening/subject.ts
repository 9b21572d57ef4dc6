import { z } from "zod";
import { countryToIso2 } from "@/lib/countries";

/**
 * The subject of a screen (spec, Resources: Subject). The spec leaves the optional fields' formats
 * open; these are ours, and each is described for OpenAPI. null is accepted for an absent field.
 */
export const MAX_NAME_LENGTH = 500;
export const MAX_ALIASES = 20;
export const MAX_USER_REFERENCE_LENGTH = 200;

const DOB_RE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

/** A real calendar date (or year / year-month), from 1800 up to today (UTC). */
export function isValidBirthDate(text: string, today: Date = new Date()): boolean {
  const m = DOB_RE.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = m[2] === undefined ? null : Number(m[2]);
  const day = m[3] === undefined ? null : Number(m[3]);
  if (year < 1800) return false;
  if (month !== null && (month < 1 || month > 12)) return false;
  if (day !== null) {
    const date = new Date(Date.UTC(year, (month ?? 1) - 1, day));
    if (date.getUTCMonth() !== (month ?? 1) - 1 || date.getUTCDate() !== day) return false;
  }
  const earliest = Date.UTC(year, (month ?? 1) - 1, day ?? 1);
  return earliest <= today.getTime();
}

const name = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(MAX_NAME_LENGTH, `${what} must be at most ${MAX_NAME_LENGTH} characters`);

export const FullName = name("fullName").describe(`The subject's full name as the customer gave it, 1–${MAX_NAME_LENGTH} characters, any script.`);

export const DateOfBirth = z
  .string()
  .trim()
  .refine((v) => isValidBirthDate(v), 'must be "YYYY", "YYYY-MM" or "YYYY-MM-DD": a real date from 1800 up to today')
  .describe('Date of birth, full or partial: "YYYY", "YYYY-MM" or "YYYY-MM-DD" (a real date, 1800 up to today).');

export const Nationality = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .transform((value, ctx) => {
    const iso2 = countryToIso2(value);
    if (iso2) return iso2;
    ctx.addIssue({ code: "custom", message: "must be an ISO 3166-1 alpha-2 code (e.g. GB) or an English country name (e.g. United Kingdom)" });
    return z.NEVER;
  })
  .describe('Nationality: ISO 3166-1 alpha-2 ("GB") or an English country name ("United Kingdom"); stored as the alpha-2 code.');

export const Aliases = z
  .array(name("alias"))
  .max(MAX_ALIASES, `must hold at most ${MAX_ALIASES} aliases`)
  .describe(`Other names of the subject (at most ${MAX_ALIASES}, each 1–${MAX_NAME_LENGTH} characters); each is screened like fullName.`);

export const UserReference = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(MAX_USER_REFERENCE_LENGTH, `must be at most ${MAX_USER_REFERENCE_LENGTH} characters`)
  .describe(
    `Your own reference for the subject (1–${MAX_USER_REFERENCE_LENGTH} characters), e.g. a customer id. Carried on the webhook, so never put a name in it.`,
  );

export const SUBJECT_SHAPE = {
  fullName: FullName,
  dateOfBirth: DateOfBirth.nullish(),
  nationality: Nationality.nullish(),
  aliases: Aliases.nullish(),
  userReference: UserReference.nullish(),
};

export const Subject = z.object(SUBJECT_SHAPE).strict().describe("A person to screen. Unknown fields are rejected.");
export type SubjectInput = z.input<typeof Subject>;

/** A validated subject with absent fields normalised to null / [] so records and hashes are uniform. */
export interface ScreeningSubject {
  fullName: string;
  dateOfBirth: string | null;
  nationality: string | null;
  aliases: string[];
  userReference: string | null;
}

export function normaliseSubject(parsed: z.output<typeof Subject>): ScreeningSubject {
  return {
    fullName: parsed.fullName,
    dateOfBirth: parsed.dateOfBirth ?? null,
    nationality: parsed.nationality ?? null,
    aliases: parsed.aliases ?? [],
    userReference: parsed.userReference ?? null,
  };
}
