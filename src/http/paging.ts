import { z } from "zod";

/** Longest run of digits read as a number: past it a value is out of range whatever the bound. */
const MAX_DIGITS = 15;

/**
 * A query parameter holding a whole number from `min` to `max`, written in decimal digits only.
 * z.coerce.number() read "0x10" as 16 and "" as 0, said "must be a number, not a number" of "1e400"
 * (Infinity), gave two contradicting bounds for a 20-digit value and "must be a number" of a
 * parameter given twice (`take=1&take=2` arrives as an array). Each of those now gets one message that
 * says what to send. The pipe keeps the integer type, bounds and default in the OpenAPI document.
 */
export function wholeNumberParam(min: number, max: number, fallback: number) {
  const range = rangeMessage(min, max);
  return z.preprocess(decimalDigits(range), z.number().int().min(min, range).max(max, range).default(fallback));
}

/** The same, for a parameter with no default: absent stays undefined. */
export function optionalWholeNumberParam(min: number, max: number) {
  const range = rangeMessage(min, max);
  return z.preprocess(decimalDigits(range), z.number().int().min(min, range).max(max, range).optional());
}

/** What a query parameter given twice is told (here, and for any other parameter in app.ts). */
export const REPEATED_PARAMETER = "is given more than once; give it once";

const rangeMessage = (min: number, max: number) => `must be a whole number from ${min} to ${max}`;

/** Reads a query value written in decimal digits as a number; anything else is one issue saying `range`. */
function decimalDigits(range: string) {
  return (raw: unknown, ctx: z.RefinementCtx): unknown => {
    if (raw === undefined) return undefined;
    if (Array.isArray(raw)) {
      ctx.addIssue({ code: "custom", message: REPEATED_PARAMETER, input: raw });
      return z.NEVER;
    }
    if (typeof raw === "string" && raw.length <= MAX_DIGITS && /^\d+$/.test(raw)) return Number(raw);
    ctx.addIssue({ code: "custom", message: range, input: raw });
    return z.NEVER;
  };
}

/** skip/take as the spec defines them (defaults 0 and 50); take is capped at 500 to bound a page's cost. */
export const MAX_TAKE = 500;
export const Paging = z.object({
  skip: wholeNumberParam(0, 2_147_483_647, 0).describe("Entries to skip (default 0)"),
  take: wholeNumberParam(1, MAX_TAKE, 50).describe(`Page size (default 50, at most ${MAX_TAKE})`),
});
