import type { SourceList } from "../watchlists/entity";
import type { RiskProfileOptions, RiskProfileOverrides, SpecOptionName } from "./options";
import { type ResolvedOptions, resolveOptions } from "./options-resolve";

/**
 * Which per-request overrides a tenant's risk profile allows. The profile is the compliance
 * officer's policy; a request (an analyst, an integration) may make a screen stricter than it, never
 * looser, unless the profile names the option in `looseningAllowed`. Without this, any key holding
 * Screening.Write could drop a sanctions list or raise the threshold and turn a hit into a Clear.
 *
 * "Looser" means: could report fewer matches, or hide some from the reviewer. Each rule below says
 * which direction that is for its option. Options the request did not set are not judged, except
 * that a coveragePreset override is judged by the lists and adverse-media check it resolves to.
 */
export interface LooseningIssue {
  /** The request field to name in the 400, e.g. `options.threshold`. */
  readonly field: string;
  readonly message: string;
}

type Rule = (profile: ResolvedOptions, request: ResolvedOptions) => string | null;

const higherIsLooser =
  (key: "threshold" | "trigramFloor" | "dobMismatchPenalty" | "dobMismatchHighScoreThreshold"): Rule =>
  (p, r) =>
    r[key] > p[key] ? `${r[key]} is looser than the risk profile's ${p[key]}` : null;

const lowerIsLooser =
  (key: "candidateLimit" | "resultCap" | "dobYearTolerance"): Rule =>
  (p, r) =>
    r[key] < p[key] ? `${r[key]} is looser than the risk profile's ${p[key]}` : null;

const offIsLooser =
  (key: "phonetic" | "nicknames" | "dobMismatchSurfacing" | "monitor" | "adverseMedia"): Rule =>
  (p, r) =>
    p[key] && !r[key] ? `false is looser than the risk profile's true` : null;

const missing = (label: string, wanted: readonly string[], got: readonly string[]): string | null => {
  const dropped = wanted.filter((item) => !got.includes(item));
  return dropped.length > 0 ? `drops ${label} the risk profile screens against: ${dropped.join(", ")}` : null;
};

/** Per option, how a request's value can be looser than the profile's. */
const RULES: Record<Exclude<SpecOptionName, "coveragePreset">, Rule> = {
  threshold: higherIsLooser("threshold"),
  exactMatch: (p, r) => (r.exactMatch && !p.exactMatch ? "true is looser than the risk profile's false (only exact names would match)" : null),
  adverseMedia: offIsLooser("adverseMedia"),
  monitor: offIsLooser("monitor"),
  lists: (p, r) => missing("lists", p.lists, r.lists),
  pepTiers: (p, r) => missing("PEP tiers", p.pepTiers, r.pepTiers),
  // Only flags stale data: a longer allowance flags less.
  maxDataAgeDays: (p, r) =>
    p.maxDataAgeDays !== null && (r.maxDataAgeDays === null || r.maxDataAgeDays > p.maxDataAgeDays)
      ? `${r.maxDataAgeDays} is looser than the risk profile's ${p.maxDataAgeDays}`
      : null,
  phonetic: offIsLooser("phonetic"),
  nicknames: offIsLooser("nicknames"),
  trigramFloor: higherIsLooser("trigramFloor"),
  candidateLimit: lowerIsLooser("candidateLimit"),
  resultCap: lowerIsLooser("resultCap"),
  // A smaller tolerance counts more birth dates as mismatches, and each mismatch lowers the score.
  dobYearTolerance: lowerIsLooser("dobYearTolerance"),
  dobMismatchPenalty: higherIsLooser("dobMismatchPenalty"),
  dobMismatchSurfacing: offIsLooser("dobMismatchSurfacing"),
  dobMismatchHighScoreThreshold: higherIsLooser("dobMismatchHighScoreThreshold"),
};

/**
 * The overrides that would loosen the profile and that it does not allow to; empty when the request
 * may run. `enabledLists`: the lists the tenant may screen at all. Pure: the caller turns issues into
 * a 400.
 */
export function looseningIssues(
  profile: RiskProfileOptions,
  overrides: RiskProfileOverrides,
  enabledLists?: ReadonlySet<SourceList>,
): LooseningIssue[] {
  const set = (name: SpecOptionName) => overrides[name] !== null && overrides[name] !== undefined;
  if (!(Object.keys(RULES) as SpecOptionName[]).some(set) && !set("coveragePreset")) return [];
  const allowed = new Set<string>(profile.looseningAllowed);
  // Judged on what the tenant can screen: a list it is not enabled for is dropped from both sides,
  // so selecting exactly its enabled lists is not "dropping" the others.
  const clip = (options: ResolvedOptions): ResolvedOptions =>
    enabledLists === undefined ? options : { ...options, lists: options.lists.filter((list) => enabledLists.has(list)) };
  const base = clip(resolveOptions(profile, {}));
  const requested = clip(resolveOptions(profile, overrides));
  const issues: LooseningIssue[] = [];
  for (const [name, rule] of Object.entries(RULES) as [keyof typeof RULES, Rule][]) {
    // lists and adverseMedia can also be changed through the preset; blame the field the request set.
    const blamed: SpecOptionName | null = set(name)
      ? name
      : (name === "lists" || name === "adverseMedia") && set("coveragePreset")
        ? "coveragePreset"
        : null;
    if (blamed === null || allowed.has(blamed)) continue;
    const why = rule(base, requested);
    if (why !== null) issues.push({ field: `options.${blamed}`, message: `${why}; the profile does not allow loosening ${blamed}` });
  }
  return issues;
}
