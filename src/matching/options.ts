import { z } from "zod";
import { PEP_TIER_CODES, PEP_TIERS, type PepTier, SOURCE_LISTS, type SourceList } from "../watchlists/entity";

/**
 * Screening options: every option of the spec's per-upload list, as a field of the tenant's risk
 * profile. The admin sets the profile; a request may override fields (null = keep the profile's).
 * Ranges and defaults are documented per field (they land in OpenAPI) and in docs/matching.md.
 */
export const COVERAGE_PRESETS = ["sanctions", "sanctions_pep", "full"] as const;
export type CoveragePreset = (typeof COVERAGE_PRESETS)[number];

/** Lists each preset covers; "full" adds adverse media, which is not a list (see adverseMedia). */
export const PRESET_LISTS: Record<CoveragePreset, readonly SourceList[]> = {
  sanctions: ["OFAC", "EU", "UK", "UN"],
  sanctions_pep: ["OFAC", "EU", "UK", "UN", "WIKIDATA"],
  full: ["OFAC", "EU", "UK", "UN", "WIKIDATA"],
};

export const DEFAULT_OPTIONS = {
  threshold: 0.82,
  exactMatch: false,
  adverseMedia: null,
  monitor: false,
  lists: null,
  pepTiers: [...PEP_TIERS],
  coveragePreset: "sanctions_pep",
  maxDataAgeDays: null,
  phonetic: true,
  nicknames: true,
  trigramFloor: 0.3,
  candidateLimit: 200,
  resultCap: 25,
  dobYearTolerance: 1,
  dobMismatchPenalty: 0.15,
  dobMismatchSurfacing: true,
  dobMismatchHighScoreThreshold: 0.95,
  homeCountry: null,
} as const satisfies Record<string, unknown>;

const sourceList = z.enum(SOURCE_LISTS);
/** The tier a spec code names ("PEP1" is Domestic), for the message that refuses the code in JSON. */
const TIER_OF_CODE = new Map(Object.entries(PEP_TIER_CODES).map(([tier, code]) => [code, tier]));

// JSON takes the tier names the appliance answers with (one enum for client generators); the
// multipart form and the CLI also take the codes (options-form.ts). A code sent in JSON is refused
// with a message naming the tier it stands for, not only the list of names.
const pepTier = z.enum(PEP_TIERS as readonly PepTier[] as [PepTier, ...PepTier[]], {
  error: (issue) => {
    const tier = typeof issue.input === "string" ? TIER_OF_CODE.get(issue.input.trim().toUpperCase()) : undefined;
    return tier === undefined ? undefined : `must be one of ${PEP_TIERS.join(", ")}: in JSON, ${String(issue.input)} is written ${tier}`;
  },
});

const fields = {
  threshold: z.number().min(0.5).max(1).describe("Minimum match score (0.5–1) for a listed entity to be reported. Default 0.82."),
  exactMatch: z.boolean().describe("Only report names equal to the subject's after normalisation (case, accents, script, punctuation, token order, titles and legal forms). Default false."),
  adverseMedia: z.boolean().nullable().describe("Run the adverse-media check. null = follow coveragePreset (on for \"full\"). Default null."),
  monitor: z.boolean().describe("Ask for the subject to be monitored after the screen. This version records the flag on the screening but has no ongoing monitoring yet: nobody is enrolled or re-screened. Default false."),
  lists: z.array(sourceList).min(1).nullable().describe("Watchlists to screen against (OFAC, EU, UK, UN, WIKIDATA). null = the lists of coveragePreset. Default null."),
  pepTiers: z
    .array(pepTier)
    .describe(
      "PEP tiers that may produce a match (Domestic, Foreign, InternationalOrganization, FamilyOrAssociate: the spec's PEP1-PEP4, which the multipart form and the CLI also take); sanctions matches are never filtered by tier. Default all four.",
    ),
  coveragePreset: z.enum(COVERAGE_PRESETS).describe("Named coverage: sanctions = OFAC, EU, UK, UN; sanctions_pep = + WIKIDATA PEPs; full = + adverse media. Default sanctions_pep."),
  maxDataAgeDays: z.number().int().min(1).max(3650).nullable().describe("Flag matches, and report stale sources (listVersions.stale), whose list was published more whole days ago than this, or carries no date (matches are kept: a stale sanctions hit is still a hit). null = no age check. Default null."),
  phonetic: z.boolean().describe("Accept phonetic equivalents of name tokens (Double Metaphone), e.g. Mohamed~Muhammad. Default true."),
  nicknames: z.boolean().describe("Accept given-name equivalents: English nicknames (Bob~Robert), cross-language forms (Yusuf~Joseph) and Korean romanisations (Jong~Chong, Lee~Ri). Default true."),
  trigramFloor: z.number().min(0.1).max(0.9).describe("Retrieval: minimum share (0.1–0.9) of a subject name token's trigrams a listed token must share to be compared fuzzily. Lower finds more spelling variants, slower. Default 0.3."),
  candidateLimit: z.number().int().min(10).max(5000).describe("Retrieval: maximum listed names (10–5000) fully scored per subject name, best pre-scores first. Default 200."),
  resultCap: z.number().int().min(1).max(500).describe("Maximum matches (1–500) returned per screening, best first; the decision still counts all. Default 25."),
  dobYearTolerance: z.number().int().min(0).max(10).describe("Years (0–10) a birth year may differ and still not count as a date-of-birth mismatch. Default 1."),
  dobMismatchPenalty: z.number().min(0).max(0.5).describe("Score subtracted (0–0.5) when both dates of birth are known and disagree beyond the tolerance. Default 0.15."),
  dobMismatchSurfacing: z.boolean().describe("Keep a match visible for review despite a date-of-birth mismatch when its name score is at least dobMismatchHighScoreThreshold. Default true."),
  dobMismatchHighScoreThreshold: z.number().min(0.5).max(1).describe("Name score (0.5–1) from which dobMismatchSurfacing keeps a mismatching match. Default 0.95."),
};

/** The spec's option names, each overridable per request. */
export type SpecOptionName = keyof typeof fields;
const optionName = z.enum(Object.keys(fields) as [SpecOptionName, ...SpecOptionName[]]);

export const RiskProfileOptions = z
  .object({
    threshold: fields.threshold.default(DEFAULT_OPTIONS.threshold),
    exactMatch: fields.exactMatch.default(DEFAULT_OPTIONS.exactMatch),
    adverseMedia: fields.adverseMedia.default(DEFAULT_OPTIONS.adverseMedia),
    monitor: fields.monitor.default(DEFAULT_OPTIONS.monitor),
    lists: fields.lists.default(DEFAULT_OPTIONS.lists),
    pepTiers: fields.pepTiers.default([...DEFAULT_OPTIONS.pepTiers]),
    coveragePreset: fields.coveragePreset.default(DEFAULT_OPTIONS.coveragePreset),
    maxDataAgeDays: fields.maxDataAgeDays.default(DEFAULT_OPTIONS.maxDataAgeDays),
    phonetic: fields.phonetic.default(DEFAULT_OPTIONS.phonetic),
    nicknames: fields.nicknames.default(DEFAULT_OPTIONS.nicknames),
    trigramFloor: fields.trigramFloor.default(DEFAULT_OPTIONS.trigramFloor),
    candidateLimit: fields.candidateLimit.default(DEFAULT_OPTIONS.candidateLimit),
    resultCap: fields.resultCap.default(DEFAULT_OPTIONS.resultCap),
    dobYearTolerance: fields.dobYearTolerance.default(DEFAULT_OPTIONS.dobYearTolerance),
    dobMismatchPenalty: fields.dobMismatchPenalty.default(DEFAULT_OPTIONS.dobMismatchPenalty),
    dobMismatchSurfacing: fields.dobMismatchSurfacing.default(DEFAULT_OPTIONS.dobMismatchSurfacing),
    dobMismatchHighScoreThreshold: fields.dobMismatchHighScoreThreshold.default(DEFAULT_OPTIONS.dobMismatchHighScoreThreshold),
    homeCountry: z
      .string()
      .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as GB")
      .nullable()
      .default(DEFAULT_OPTIONS.homeCountry)
      .describe("The tenant's home country (ISO 3166-1 alpha-2): PEP positions there are Domestic, elsewhere Foreign. Default null (no Domestic tier)."),
    looseningAllowed: z
      .array(optionName)
      .default([])
      .describe(
        "Options a request may set LOOSER than this profile (a higher threshold, fewer lists or PEP tiers, exactMatch on, phonetic off...). A request may always make a screen stricter; a looser value of an option not named here is refused with 400. Default [] (requests can only tighten).",
      ),
  })
  .strict()
  .describe("Risk profile: matching options of a tenant.");
export type RiskProfileOptions = z.output<typeof RiskProfileOptions>;

/** Per-request overrides: any subset of the spec's options; null or absent = use the profile. */
export const RiskProfileOverrides = z
  .object(Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, s.nullable().optional()])) as {
    [K in keyof typeof fields]: z.ZodOptional<z.ZodNullable<(typeof fields)[K]>>;
  })
  .strict()
  .describe("Per-request screening options; each overrides the tenant's risk profile, null keeps it.");
export type RiskProfileOverrides = z.output<typeof RiskProfileOverrides>;

export const SPEC_OPTION_NAMES = Object.keys(fields) as SpecOptionName[];

/** The profile with defaults filled in. */
export function defaultProfile(): RiskProfileOptions {
  return RiskProfileOptions.parse({});
}
