import { z } from "zod";
import { BODY_CORRELATION_ID, schemaComponent } from "@/http/openapi";
import type { MatchKind } from "@/matching/expand";
import { COVERAGE_PRESETS } from "@/matching/options";
import { QUERY_READINGS, type QueryReading } from "@/matching/readings";
import type { MatchExplanation } from "@/matching/types";
import { PEP_TIERS, type PepTier, SOURCE_LISTS } from "@/watchlists/entity";
import { MAX_ALIASES, MAX_BULK_ROWS, MAX_NAME_LENGTH, MAX_USER_REFERENCE_LENGTH, Subject } from "./subject";
import { SCREENING_ORIGINS } from "./types";

/** Response shapes for the OpenAPI description only: responses are not validated at run time. */
const Source = z.enum(SOURCE_LISTS);
const Tier = z.enum(PEP_TIERS as readonly PepTier[] as [PepTier, ...PepTier[]]);
export const Decision = z.enum(["Clear", "Review", "Match"]).describe("Clear: nothing counted. Match: a strong match (score ≥ 0.95). Review: a human must look.");
export const RiskBand = z.enum(["Low", "Medium", "High", "Critical"]).describe("Low < 25 ≤ Medium < 50 ≤ High < 75 ≤ Critical, from riskScore.");
const Classification = z.enum(["sanctions", "pep", "adverse_media"]).nullable().describe("The top classification; null on a clean screen.");
const AdverseMedia = z
  .enum(["Skipped", "Ok", "Stale", "Unavailable"])
  .describe("Skipped: not requested. Unavailable: requested but no adverse-media provider is configured, so nothing was looked at — never read it as clean.");

/** Each kind of token pair the scorer aligns (MatchKind), as the explanation's `kind` describes it. */
const MATCH_KINDS: Record<MatchKind, string> = {
  exact: "the same spelling",
  fuzzy: "a spelling variant or typo (Jaro-Winkler and edit-distance similarity)",
  transliteration: "the same spelling once transliteration variants are folded (Dzhokhar/Jokhar), or a consonant skeleton from a script without short vowels that the Latin spelling accounts for (mhmd/Mohamed)",
  phonetic: "the same Double Metaphone key (option phonetic)",
  nickname: "a nickname or cross-language given-name equivalent (option nicknames)",
  initial: "an initial standing for the full token",
};
const kinds = Object.keys(MATCH_KINDS) as [MatchKind, ...MatchKind[]];

const WeightedToken = z.object({
  token: z.string().describe("The token, normalised (transliterated to ASCII, lowercase)"),
  weight: z.number().min(0).describe("The weight it costs unmatched: its rarity weight; 0 for a title, honorific or legal form (free when unmatched), 40% of it for a patronymic"),
});

const Alignment = z
  .object({
    query: z.string().describe("The subject's token, normalised (transliterated to ASCII, lowercase); two adjacent tokens separated by a space when they matched one listed token as one word (Nasr Allah = Nasrallah)"),
    candidate: z.string().describe("The listed name's token, normalised likewise; two adjacent tokens separated by a space when they matched as one word"),
    similarity: z
      .number()
      .min(0)
      .max(1)
      .describe("Similarity credited to the pair: exact 1; fuzzy the spelling similarity, credited in full from 0.9 and falling faster below; transliteration 0.92 or 0.93; phonetic at most 0.88; nickname 0.9; initial 0.75; a quarter of that when outOfOrder"),
    kind: z.enum(kinds).describe(`How the two tokens were found equivalent. ${kinds.map((k) => `${k}: ${MATCH_KINDS[k]}`).join(". ")}.`),
    weight: z.number().min(0).describe("The pair's weight: the mean rarity weight (idf) of its two sides; for an initial at most 1.5, the rest of the full token counting as unmatched"),
    outOfOrder: z
      .literal(true)
      .optional()
      .describe(
        "Present when the pair reads the syllables of one written word out of their order or apart (광수, Kwang-su, against the listed Su-gwang): the name's letters are there, the name is another, so the similarity is a quarter of the tokens' own. Words may move freely; the syllables within one word may not, except the surname that starts a word of three syllables or a name written as one word (김정은, 习近平)",
      ),
  })
  .describe("One aligned token pair: a subject token and a listed token judged to be the same name part");

const Explanation = z
  .object({
    nameScore: z
      .number()
      .min(0)
      .max(1)
      .describe(
        "Score of the matched name alone, before aliasFactor and the date-of-birth and nationality effects: matchedWeight / (Σ alignments[].weight + omissionPenalty + conflictPenalty) × singleTokenFactor, 0 when only titles or legal forms matched. With exactMatch, 1 (the names are equal once normalised) or 0",
      ),
    alignments: z.array(Alignment).describe("The token pairs aligned between the subject's name (queryName) and the listed name (matchedName); each token is used at most once; words may come in any order, the syllables of one written word in theirs (outOfOrder)"),
    unmatchedQuery: z.array(WeightedToken).describe("The subject's name tokens left unaligned, with the weight each costs"),
    unmatchedCandidate: z.array(WeightedToken).describe("The listed name's tokens left unaligned, with the weight each costs"),
    matchedWeight: z.number().min(0).describe("The evidence for the name: Σ similarity × weight over the alignments"),
    omissionPenalty: z
      .number()
      .min(0)
      .describe(
        "0.25 × (Uq + Uc), where Uq and Uc are the weights left unmatched on the subject's and the listed side (the unmatchedQuery and unmatchedCandidate weights, plus the part of a full token an initial does not explain): a token only one side has (a dropped middle name) costs little",
      ),
    conflictPenalty: z
      .number()
      .min(0)
      .describe("1.0 × min(Uq, Uc): when both names have unmatched tokens they disagree (a different given name) and the smaller side costs again; 0 when either side has none"),
    singleTokenFactor: z
      .number()
      .min(0)
      .max(1)
      .describe("0.8 when a subject name of two or more substantive tokens matched through only one of them (Noura Lee against the alias Noura), else 1; already applied to nameScore"),
    aliasQuality: z.enum(["strong", "weak"]).describe("The publisher's quality rating of the matched name: weak for an OFAC weak aka, a UN Low or an OFSI Low-quality alias, strong otherwise"),
    aliasFactor: z.number().min(0).max(1).describe("Multiplier of nameScore for the alias quality: 0.9 for a weak alias, 1 otherwise"),
    dob: z
      .object({
        relation: z
          .enum(["exact", "year", "near", "mismatch", "unknown"])
          .describe(
            "The closest of the record's dates of birth to the subject's. exact: the same day. year: the same year (or year and month) with the rest unknown on one side, or inside a listed range of years. near: within dobYearTolerance years, or the same year with a different month or day. mismatch: both known and further apart. unknown: the subject or the record has no date of birth",
          ),
        effect: z.number().describe("Added to the score: +0.04 for exact, +0.02 for year, 0 for near or unknown, −dobMismatchPenalty (options) for mismatch"),
      })
      .describe("The subject's date of birth against the record's, and what it did to the score"),
    nationality: z
      .object({
        relation: z
          .enum(["match", "mismatch", "unknown"])
          .describe("match: the subject's nationality is one of the record's. mismatch: both known, none shared. unknown: the subject or the record has none"),
        effect: z.number().describe("Added to the score: +0.02 for match, −0.03 for mismatch, 0 for unknown"),
      })
      .describe("The subject's nationality against the record's, and what it did to the score"),
    dobMismatchSurfaced: z
      .boolean()
      .describe(
        "True when a date-of-birth mismatch took the score under the threshold but nameScore × aliasFactor was at least dobMismatchHighScoreThreshold, so (dobMismatchSurfacing) the match was kept at exactly the threshold for a reviewer; such a match never makes the decision Match",
      ),
  })
  .describe(
    "Why the entity matched, feature by feature: score = nameScore × aliasFactor + dob.effect + nationality.effect, kept within 0–1 and rounded to 4 decimals; the threshold itself when dobMismatchSurfaced. Values are unrounded. docs/matching.md, Scoring.",
  );

/** Compile-time check that the schema describes the engine's MatchExplanation (src/matching/types.ts), member for member. */
type ExplanationOutput = z.output<typeof Explanation>;
type SameMembers<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? (A extends B ? true : false) : false) : false;
true satisfies SameMembers<ExplanationOutput, MatchExplanation>;

const MatchSchema = z
  .object({
    source: Source,
    externalId: z.string().describe("Id of the official record"),
    entityType: z.enum(["person", "organisation", "vessel", "aircraft"]),
    primaryName: z.string(),
    matchedName: z.string().describe("The listed name that matched, as published"),
    matchedNameKind: z.enum(["primary", "aka", "fka", "nka"]),
    queryField: z.string().describe('Which subject name matched: "fullName" or "aliases[i]"'),
    queryName: z.string().describe("That subject name as sent"),
    queryReading: z
      .enum(Object.keys(QUERY_READINGS) as [QueryReading, ...QueryReading[]])
      .optional()
      .describe(
        `Present when queryName matched only as read another way, screened beside it as written: ${Object.entries(QUERY_READINGS)
          .map(([k, v]) => `${k}: ${v}`)
          .join("; ")}. The alignments show the tokens of that reading.`,
      ),
    score: z.number().min(0).max(1),
    programmes: z.array(z.string()),
    pepTiers: z.array(Tier),
    deceased: z.boolean(),
    verifyUrl: z.string().describe("Public URL of the official record"),
    staleSource: z.boolean().describe("The source is older than maxDataAgeDays"),
    explanation: Explanation,
  })
  .describe("A listed entity that matched, with its explanation.");

const ResolvedOptionsSchema = z
  .object({
    threshold: z.number(),
    exactMatch: z.boolean(),
    adverseMedia: z.boolean(),
    monitor: z.boolean(),
    lists: z.array(Source),
    pepTiers: z.array(Tier),
    coveragePreset: z.enum(COVERAGE_PRESETS),
    maxDataAgeDays: z.number().int().nullable(),
    phonetic: z.boolean(),
    nicknames: z.boolean(),
    trigramFloor: z.number(),
    candidateLimit: z.number().int(),
    resultCap: z.number().int(),
    dobYearTolerance: z.number().int(),
    dobMismatchPenalty: z.number(),
    dobMismatchSurfacing: z.boolean(),
    dobMismatchHighScoreThreshold: z.number(),
    homeCountry: z.string().nullable(),
  })
  .describe("The options the screen ran with: risk profile, then request overrides, limited to the tenant's enabled lists. A rescreen reuses them.");

/** The subject as stored and returned: validated, nationality as its alpha-2 code, absent fields null, aliases []. */
const SubjectView = z
  .object({
    fullName: z.string().min(1).max(MAX_NAME_LENGTH).describe("As sent, trimmed"),
    dateOfBirth: z
      .string()
      .regex(/^\d{4}(?:-\d{2}(?:-\d{2})?)?$/)
      .nullable()
      .describe('"YYYY", "YYYY-MM" or "YYYY-MM-DD", as sent; null when not given'),
    nationality: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .nullable()
      .describe("ISO 3166-1 alpha-2 code (an alpha-3 code or a country name sent is stored as its alpha-2 code); null when not given"),
    aliases: z.array(z.string().min(1).max(MAX_NAME_LENGTH)).max(MAX_ALIASES).describe("Other names, trimmed; [] when none were given"),
    userReference: z.string().min(1).max(MAX_USER_REFERENCE_LENGTH).nullable(),
  })
  .describe("The screened subject, validated.");

export const ScreeningResponse = z
  .object({
    id: z.uuid(),
    createdAt: z.iso.datetime().describe("When the screening was made: ISO 8601 date-time in UTC (Z), as on its webhook"),
    correlationId: BODY_CORRELATION_ID.describe(
      "The correlation id of THIS request (as on every JSON object body), not of the one that created the screening: a later read, or the replay of an Idempotency-Key, shows its own id here. To match a screening.completed webhook's correlationId, compare it with screeningCorrelationId",
    ),
    screeningCorrelationId: z
      .string()
      .nullable()
      .describe(
        "The correlation id of the request that created the screening (its check, bulk or rescreen call), fixed for good: the correlationId its screening.completed webhook carries, so compare a webhook's correlationId with this field, not with correlationId. Null for a screening made without a request",
      ),
    userReference: z.string().nullable(),
    subject: SubjectView,
    options: ResolvedOptionsSchema,
    listVersions: z
      .object({
        snapshotId: z.string(),
        sources: z
          .array(
            z.object({
              source: Source,
              versionId: z.string(),
              publishedAt: z.string().nullable().describe("Publication date from inside the file, as an ISO 8601 date-time in UTC (a date alone is its first instant, a time without offset is read as UTC); the file's text as written when it is no ISO 8601 date; null when it carries none"),
              isDemo: z.boolean().describe("true when this version is the FICTIONAL demo list (`aml serve --demo`), not official data"),
            }),
          )
          .describe("The version read of each selected list (options.lists) the snapshot held"),
        notLoaded: z.array(Source).describe("Selected lists the snapshot did not hold: NOT checked, so a Clear says nothing about them"),
        stale: z
          .array(Source)
          .describe(
            "Selected lists older than options.maxDataAgeDays when screened (more whole days between their publication and createdAt than the limit), undated (no ISO 8601 date), or not loaded: a Clear rests on old data for them, and each of their matches has staleSource true. [] when maxDataAgeDays is null",
          ),
        isDemo: z
          .boolean()
          .describe(
            "true when any source read is the FICTIONAL demo list: the decision says nothing about real sanctions or PEP data. Only `aml serve --demo` loads that list, and only into a data folder that never imported official files",
          ),
      })
      .describe("The watchlist data the screen read"),
    isMatch: z.boolean(),
    score: z.number().min(0).max(1).describe("Best counted match score (0–1); 0 when Clear"),
    decision: Decision,
    riskScore: z.number().int().min(0).max(100),
    riskBand: RiskBand,
    classification: Classification,
    pepTiers: z.array(Tier).describe("Distinct PEP tiers among the counted matches, unranked"),
    sourceLists: z.array(Source).describe("Distinct lists that produced a counted match"),
    matchCount: z.number().int().min(0).describe("Matches that drove the decision; excludes deceased-suppressed ones and counts beyond resultCap"),
    matches: z.array(MatchSchema).describe("Best first, at most resultCap"),
    suppressedMatches: z.array(MatchSchema).describe("Matches of deceased persons: shown for information, excluded from the decision"),
    adverseMediaStatus: AdverseMedia,
    rescreenOf: z.uuid().nullable().describe("The screening this one re-screened"),
    origin: z.enum(SCREENING_ORIGINS),
  })
  .describe(
    "A screening: an immutable record. Its two correlation ids differ: correlationId is the current request's (every JSON body carries the request's own), screeningCorrelationId is that of the request that created the screening, the one its screening.completed webhook carries.",
  );

const BulkRow = z.object({
  index: z.number().int().min(0).describe("Position in the request array, from 0"),
  status: z.enum(["screened", "failed"]),
  screeningId: z.uuid().nullable().describe("Read the full record with GET /v1/screenings/{id}; null for a failed row"),
  userReference: z.string().nullable(),
  decision: Decision.nullable(),
  isMatch: z.boolean().nullable(),
  score: z.number().min(0).max(1).nullable(),
  riskScore: z.number().int().min(0).max(100).nullable(),
  riskBand: RiskBand.nullable(),
  classification: Classification,
  pepTiers: z.array(Tier),
  sourceLists: z.array(Source),
  matchCount: z.number().int().nullable(),
  adverseMediaStatus: AdverseMedia.nullable(),
  listsNotLoaded: z
    .array(Source)
    .nullable()
    .describe(
      "Lists the tenant's options selected that the serving snapshot did not hold (listVersions.notLoaded of the record): NOT checked, so a Clear says nothing about them. [] when every selected list was checked; null for a failed row. One snapshot serves the whole request, so it is the same for every screened row.",
    ),
  listsStale: z
    .array(Source)
    .nullable()
    .describe(
      "Lists the tenant's options selected whose data was older than maxDataAgeDays, undated or not loaded (listVersions.stale of the record): a Clear rests on old data for them. [] without a limit or when every selected list is fresh; null for a failed row. The same for every screened row.",
    ),
  error: z
    .object({
      code: z.enum(["VALIDATION_FAILED", "INTERNAL"]),
      detail: z.string(),
      errors: z.array(z.object({ field: z.string(), message: z.string() })),
    })
    .nullable()
    .describe("Why the row failed; null for a screened row"),
});

export const BulkResponse = z.object({
  rows: z.array(BulkRow).describe("One entry per input row, in input order"),
  summary: z.object({ total: z.number().int(), screened: z.number().int(), failed: z.number().int() }),
  correlationId: BODY_CORRELATION_ID,
});

export const BulkRequest = z.array(Subject).min(1).max(MAX_BULK_ROWS).describe("1–1,000 subjects; rows are validated one by one (a bad row fails alone).");

/** Named OpenAPI components: each is published once and referenced by every route and media type using it. */
export const SCREENING_SCHEMA = schemaComponent("Screening", ScreeningResponse);
export const BULK_RESPONSE_SCHEMA = schemaComponent("BulkScreeningResponse", BulkResponse);
