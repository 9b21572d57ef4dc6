import { ServiceError } from "@/errors";
import { zodIssues } from "@/lib/validate";
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
  const parsed = parseFormOptions(splitPairs(pairs));
  if (!parsed.success) {
    const fieldIssues = zodIssues(parsed.error);
    throw new ServiceError("VALIDATION_FAILED", `Invalid option: ${fieldIssues.map((i) => `${i.field} ${i.message}`).join("; ")}`, { fieldIssues });
  }
  return parsed.data;
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
