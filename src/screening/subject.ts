import { z } from "zod";
import { withoutControls } from "@/lib/control-characters";
import { countryToIso2 } from "@/lib/countries";
import { type FoldCache, normaliseName } from "@/matching/normalise";

/**
 * The subject of a screen (spec, Resources: Subject). The spec leaves the optional fields' formats
 * open; these are ours, and each is described for OpenAPI. null is accepted for an absent field.
 */
export const MAX_NAME_LENGTH = 500;
export const MAX_ALIASES = 20;
export const MAX_USER_REFERENCE_LENGTH = 200;
/** Subjects one synchronous bulk request may hold; also what a default rate-limit burst admits. */
export const MAX_BULK_ROWS = 1_000;

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

const ASCII_ALNUM_RE = /[A-Za-z0-9]/;
const LETTER_OR_DIGIT_RE = /[\p{L}\p{N}]/u;


export const NO_NAME_MESSAGE = "must contain at least one letter or digit";

/**
 * Whether a name gives the matcher something to match: at least one letter or digit, and at least
 * one token after the matcher's own normalisation (normaliseName, which keeps [a-z0-9] runs after
 * transliteration). "!!!", "\u200b" or a lone tatweel have none, and a Clear for them would be false
 * assurance. An ASCII letter or digit is enough on its own: NFKC and any-ascii keep it and only
 * characters outside [a-z0-9] separate tokens, so the common Latin-script name costs one regex test;
 * other names are normalised once more (about 1-2 µs). The letter-or-digit test also refuses names
 * any-ascii would turn into words (an emoji becomes "slight smile").
 */
export function hasNameToken(text: string): boolean {
  if (ASCII_ALNUM_RE.test(text)) return true;
  return LETTER_OR_DIGIT_RE.test(text) && normaliseName(text).tokens.length > 0;
}

// Messages never repeat the field: problem bodies print "fullName must not be empty".
const name = () =>
  z
    .string()
    .trim()
    .min(1, { error: "must not be empty", abort: true })
    .max(MAX_NAME_LENGTH, { error: `must be at most ${MAX_NAME_LENGTH} characters`, abort: true })
    .superRefine((text, ctx) => {
      if (withoutControls(text, ctx) && !hasNameToken(text)) ctx.addIssue({ code: "custom", message: NO_NAME_MESSAGE });
    });

export const FullName = name().describe(
  `The subject's full name as the customer gave it, 1–${MAX_NAME_LENGTH} characters, any script; it must contain at least one letter or digit and no control characters.`,
);

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
    ctx.addIssue({ code: "custom", message: "must be an ISO 3166-1 alpha-2 or alpha-3 code (e.g. GB or GBR) or an English country name (e.g. United Kingdom)" });
    return z.NEVER;
  })
  .describe('Nationality: ISO 3166-1 alpha-2 ("GB") or alpha-3 ("GBR") code, any case, or an English country name ("United Kingdom"); stored as the alpha-2 code.');

export const Aliases = z
  .array(name())
  .max(MAX_ALIASES, `must hold at most ${MAX_ALIASES} aliases`)
  .describe(`Other names of the subject (at most ${MAX_ALIASES}, each 1–${MAX_NAME_LENGTH} characters, validated and screened like fullName).`);

export const UserReference = z
  .string()
  .trim()
  .min(1, { error: "must not be empty", abort: true })
  .max(MAX_USER_REFERENCE_LENGTH, { error: `must be at most ${MAX_USER_REFERENCE_LENGTH} characters`, abort: true })
  .superRefine((text, ctx) => {
    withoutControls(text, ctx);
  })
  .describe(
    `Your own reference for the subject (1–${MAX_USER_REFERENCE_LENGTH} characters, no control characters), e.g. a customer id. Carried on the webhook, so never put a name in it: one that contains every word of the subject's fullName or of an alias, anywhere and in any order, or the first and last words of such a name of three or more words (compared as the matcher compares names: case, diacritics, punctuation and spacing ignored; for a name of two or more words, digits written against it do not hide it, as in "john.smith85") is refused.`,
  );

export const NAME_IN_REFERENCE_MESSAGE = "must not contain the subject's fullName or an alias: it is sent on webhooks, which never carry a name";

/**
 * Whether `tokens` holds every token of `run` (each as often as `run` has it), anywhere and in any
 * order: "SMITH-7-ANNA" holds "Anna Smith".
 */
function holdsAll(tokens: readonly string[], run: readonly string[]): boolean {
  if (run.length > tokens.length) return false;
  const left = new Map<string, number>();
  for (const token of tokens) left.set(token, (left.get(token) ?? 0) + 1);
  for (const token of run) {
    const n = left.get(token) ?? 0;
    if (n === 0) return false;
    left.set(token, n - 1);
  }
  return true;
}

/** Whether one token of the reference is the name's tokens written together, in order or reversed ("annasmith", "smithanna"). */
function holdsJoined(tokens: readonly string[], run: readonly string[]): boolean {
  if (run.length < 2) return false;
  const joined = run.join("");
  const reversed = [...run].reverse().join("");
  return tokens.some((token) => token === joined || token === reversed);
}

/**
 * Tokens split where letters meet digits: a username-style reference writes digits against the name
 * ("john.smith85", "JohnSmith1985", "cust1985johnsmith"), which would otherwise hide it in one token.
 * Used for names of two or more tokens only (referenceHoldsName).
 */
function splitDigits(tokens: readonly string[]): string[] {
  return tokens.flatMap((token) => token.match(/[0-9]+|[^0-9]+/g) ?? []);
}

/**
 * Whether the reference contains one of the names: every token of the name, after the matcher's
 * normalisation (normaliseName: case, diacritics, punctuation and spacing folded, other scripts
 * transliterated), as whole tokens of the reference's, anywhere and in any order, or written together
 * as one of its tokens; for a name of three or more tokens, its first and last tokens are enough (the
 * given name and surname without the middle ones); for a name of two or more tokens, digits written
 * against letters part a token ("smith85" is "smith" "85"). "CUST-boris quillfeather-01",
 * "QUILLFEATHER_BORIS", "BorisQuillfeather-7", "boris-7-quillfeather" and "boris.quillfeather61"
 * hold "Böris Quillfeather", and "jane roe" holds "Jane Mary Roe"; "BQ-001" does not, nor does
 * "ANNA-7" hold "Anna Smith" (one token of two), nor "carolina-3" hold "Li Na" (only a whole token
 * counts). A one-token name ("Madonna") is held when it is a whole token of the reference. Each text
 * is normalised once, folded pieces shared through one cache, so the usual short reference costs a
 * few µs.
 */
export function referenceHoldsName(reference: string, names: readonly string[]): boolean {
  const cache: FoldCache = new Map();
  const whole = normaliseName(reference, cache).tokens;
  if (whole.length === 0) return false;
  const tokens = splitDigits(whole);
  for (const name of names) {
    const run = splitDigits(normaliseName(name, cache).tokens);
    if (run.length === 0) continue;
    // A one-token name counts only as a whole token of the reference: split pieces would refuse
    // everyday ids for a short alias ("MAX00123" for Max, "AL123456" for Al, "KIM2024001" for Kim).
    if (run.length === 1) {
      if (whole.includes(run[0] ?? "")) return true;
      continue;
    }
    if (holdsAll(tokens, run) || holdsJoined(tokens, run)) return true;
    if (run.length >= 3 && holdsAll(tokens, [run[0] ?? "", run[run.length - 1] ?? ""])) return true;
  }
  return false;
}

/**
 * The check across fields of a subject: a userReference holding the subject's name is refused on
 * userReference, since the reference travels on the webhook and the name must not (spec, Webhooks).
 * Applied to Subject and to the check body (CheckInput). Skipped when the reference or the names are
 * already refused on their own (or not strings), so each problem is reported once.
 */
export function refuseNameInReference(
  subject: { fullName?: unknown; aliases?: unknown; userReference?: unknown },
  ctx: z.RefinementCtx,
): void {
  const { fullName, aliases, userReference } = subject;
  if (typeof userReference !== "string" || typeof fullName !== "string") return;
  for (const issue of ctx.issues) if (issue.path?.[0] === "userReference") return;
  const names = [fullName];
  if (Array.isArray(aliases)) for (const alias of aliases) if (typeof alias === "string") names.push(alias);
  if (referenceHoldsName(userReference, names)) ctx.addIssue({ code: "custom", path: ["userReference"], message: NAME_IN_REFERENCE_MESSAGE });
}

export const SUBJECT_SHAPE = {
  fullName: FullName,
  dateOfBirth: DateOfBirth.nullish(),
  nationality: Nationality.nullish(),
  aliases: Aliases.nullish(),
  userReference: UserReference.nullish(),
};

export const Subject = z
  .object(SUBJECT_SHAPE)
  .strict()
  .superRefine(refuseNameInReference)
  .describe("A person to screen. Unknown fields are rejected.");
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
