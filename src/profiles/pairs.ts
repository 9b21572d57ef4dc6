import type { z } from "zod";
import { type FieldIssue, ServiceError } from "@/errors";
import { expectedValue, zodIssues } from "@/lib/validate";
import type { RiskProfileOptions, RiskProfileOverrides } from "@/matching/options";
import { parseFormOptions } from "@/matching/options-form";

/**
 * Options typed on a command line as key=value pairs ("threshold=0.9", "lists=OFAC,UN",
 * "pepTiers=PEP1,PEP2", "maxDataAgeDays=null"), converted by the same rules as multipart upload
 * fields. homeCountry and looseningAllowed are profile settings, not per-request options, so only
 * profiles accept them.
 */
export function splitPairs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new ServiceError("INVALID_INPUT", `"${pair}" is not key=value`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return out;
}

export function overridesFromPairs(pairs: readonly string[]): RiskProfileOverrides {
  const typed = splitPairs(pairs);
  const parsed = parseFormOptions(typed);
  if (!parsed.success) {
    const fieldIssues = pairIssues(parsed.error, typed);
    throw new ServiceError("VALIDATION_FAILED", `Invalid option: ${fieldIssues.map((i) => `${i.field} ${i.message}`).join("; ")}`, { fieldIssues });
  }
  return parsed.data;
}

/**
 * On a command line every value is text, so zod's "must be a number, not a string" blames a type
 * nobody chose: a value that did not convert is shown as typed instead, `threshold must be a number
 * (got "abc")`.
 */
function pairIssues(error: z.ZodError, typed: Readonly<Record<string, string>>): FieldIssue[] {
  const asTyped = new Map<string, string>();
  for (const issue of error.issues) {
    const key = issue.path.length === 1 ? issue.path[0] : undefined;
    const text = typeof key === "string" ? typed[key] : undefined;
    if (issue.code !== "invalid_type" || typeof key !== "string" || text === undefined) continue;
    // JSON quoting, so a control character typed in the value cannot reach the terminal raw.
    asTyped.set(key, `must be ${expectedValue(issue.expected)} (got ${JSON.stringify(text.trim())})`);
  }
  return zodIssues(error).map((issue) => {
    const message = asTyped.get(issue.field);
    return message === undefined ? issue : { field: issue.field, message };
  });
}

/**
 * The current profile with the pairs applied; "null" sets a nullable field to null. Validated by the
 * caller. `looseningAllowed=threshold,lists` names the options requests may loosen ("" or "none":
 * none).
 */
export function profileWithPairs(current: RiskProfileOptions, pairs: readonly string[]): Record<string, unknown> {
  const { homeCountry, looseningAllowed, ...rest } = splitPairs(pairs);
  const next: Record<string, unknown> = { ...current, ...overridesFromPairs(Object.entries(rest).map(([k, v]) => `${k}=${v}`)) };
  if (homeCountry !== undefined) {
    const value = homeCountry.trim();
    next.homeCountry = value === "" || value.toLowerCase() === "null" ? null : value.toUpperCase();
  }
  if (looseningAllowed !== undefined) {
    const names = looseningAllowed.split(",").map((name) => name.trim()).filter((name) => name !== "");
    next.looseningAllowed = names.length === 1 && names[0]?.toLowerCase() === "none" ? [] : names;
  }
  return next;
}
